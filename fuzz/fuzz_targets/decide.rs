//! Any bytes as a command through the whole policy decision.
#![no_main]
use libfuzzer_sys::fuzz_target;
use shellgate_engine::config::PolicyConfig;
use shellgate_engine::policy::{evaluate, Context, NoLookups, Policy, Request};
use shellgate_engine::{Audience, Channel, Os};

fuzz_target!(|data: &[u8]| {
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
    };
    let req = Request { tool: "shell_execute".into(), command: cmd.to_string(), working_directory: Some("/tmp".into()) };
    let d = evaluate(&policy, &req, &ctx, &NoLookups);
    assert!(d.decision == "ask" || d.decision == "deny" || d.decision == "allow");
    if d.complex {
        assert!(d.decision != "allow" || d.reason == "approved_once");
    }
});
