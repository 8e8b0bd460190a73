//! Any bytes as a hook event on stdin, for each host: an answer in the
//! host's format or a blocking exit, never a panic.
#![no_main]
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use shellgate::edge::Homes;
use shellgate::hooks::{evaluate_event, Host};

fn homes() -> &'static Homes {
    static H: OnceLock<(tempfile::TempDir, Homes)> = OnceLock::new();
    &H.get_or_init(|| {
        let t = tempfile::tempdir().expect("tempdir");
        let home = t.path().to_string_lossy().to_string();
        let h = Homes { gate: t.path().join(".shellgate"), user: home };
        (t, h)
    })
    .1
}

fuzz_target!(|data: &[u8]| {
    for host in [Host::ClaudeCode, Host::Gemini, Host::Codex] {
        let (out, code) = evaluate_event(homes(), host, data);
        assert!(code == 0 || code == 2);
        if let Some(o) = out {
            assert!(serde_json_ok(&o));
        }
    }
});

fn serde_json_ok(s: &str) -> bool {
    s.starts_with('{') && s.ends_with('}')
}
