//! Any bytes as a command through the whole policy decision.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shellgate_policy::config::PolicyConfig;
use shellgate_policy::decision::{evaluate, Context, NoLookups, Policy, Request};
use shellgate_policy::fs::OsFs;
use shellgate_policy::{Audience, Channel, Os};

fuzz_target!(|data: &[u8]| {
    // Panics the engine contains (catch_unwind around the parser) are not
    // failures; one that escapes still aborts in libfuzzer-sys's wrapper.
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    let Ok(cmd) = std::str::from_utf8(data) else { return };
    let policy = Policy::new(PolicyConfig::default(), &[]);
    let ctx = Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: Some("/tmp".into()),
        session_dir: "/tmp/.sg/sessions/s1".into(),
        home: "/tmp".into(),
        gate_home: "/tmp/.sg".into(),
        fs: &OsFs,
        run_env: shellgate_policy::RunEnv { path: Some("/usr/local/bin:/usr/bin:/bin"), xdg_config_home: None, cdpath: None },
    };
    let req = Request { tool: "shell_execute".into(), command: cmd.to_string(), working_directory: Some("/tmp".into()) };
    let d = evaluate(&policy, &req, &ctx, &NoLookups);
    assert!(d.decision == "ask" || d.decision == "deny" || d.decision == "allow");
    if d.complex {
        assert!(d.decision != "allow" || d.reason == "approved_once");
    }
});
