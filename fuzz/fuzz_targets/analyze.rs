//! Any bytes as a command: analysis, candidates and display must not panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shellgate_shell::analyze::{analyze, Env};
use shellgate_policy::candidates::{for_invocation, Resolver};
use shellgate_policy::fs::OsFs;
use shellgate_shell::display::display;

fuzz_target!(|data: &[u8]| {
    // Panics the engine contains (catch_unwind around the parser) are not
    // failures; one that escapes still aborts in libfuzzer-sys's wrapper.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(cmd) = std::str::from_utf8(data) else { return };
    let env = Env {
            home: "/home/u".into(),
            ..Default::default()
        };
    let a = analyze(cmd, Some("/home/u/p"), &env);
    let r = Resolver {
        home: "/home/u",
        windows: false,
        fs: &OsFs,
        secret_in_call: false,
    };
    let mut reasons = Vec::new();
    for inv in &a.invocations {
        let _ = for_invocation(inv, &r, &mut reasons);
    }
    let _ = display(cmd, a.script.as_ref());
});
