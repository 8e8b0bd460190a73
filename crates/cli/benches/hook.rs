//! In-process cost of a hook call and of what it loads (issue 14; the
//! process-level figures are `scripts/bench-hook.sh`).
//! Run: `cargo bench -p shellgate --bench hook`.
//!
//! - `policy/load`: `policy.toml`, the user safe-verb files and the
//!   bundled lists (every hook process pays it once);
//! - `hook/<event>`: [`shellgate::hooks::evaluate_event`] on a home whose
//!   session exists — the event's parsing, the session lookup, the
//!   evaluation, the audit append and the answer (no stdin, no process).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use shellgate::edge::{self, Homes};
use shellgate::hooks::{evaluate_event, Host};

fn bench(c: &mut Criterion) {
    let t = tempfile::tempdir().expect("tempdir");
    let home = t.path().join("home");
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).expect("mkdir");
    let homes = Homes {
        gate: home.join(".shellgate"),
        user: home.to_string_lossy().into_owned(),
    };
    c.bench_function("policy/load", |b| {
        b.iter(|| black_box(edge::load_policy(&homes).expect("policy")))
    });
    c.bench_function("policy/load host only", |b| {
        b.iter(|| {
            black_box(
                edge::load_policy_for(&homes, &[shellgate_policy::Os::host()]).expect("policy"),
            )
        })
    });
    let p = proj.to_string_lossy();
    let events = [
        (
            "claude-code Bash git status (allow)",
            Host::ClaudeCode,
            format!(
                r#"{{"session_id":"b1","cwd":"{p}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"git status"}}}}"#
            ),
        ),
        (
            "codex Bash cat README.md | grep -n TODO (allow)",
            Host::Codex,
            format!(
                r#"{{"session_id":"b1","cwd":"{p}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"cat README.md | grep -n TODO"}}}}"#
            ),
        ),
        (
            "codex WebSearch (not gated)",
            Host::Codex,
            format!(
                r#"{{"session_id":"b1","cwd":"{p}","hook_event_name":"PreToolUse","tool_name":"WebSearch","tool_input":{{}}}}"#
            ),
        ),
    ];
    let mut g = c.benchmark_group("hook");
    for (name, host, ev) in &events {
        // The first call creates the session; measure the steady state.
        let (out, code) = evaluate_event(&homes, *host, ev.as_bytes());
        assert_eq!(code, 0, "{name}: {out:?}");
        g.bench_function(*name, |b| {
            b.iter(|| black_box(evaluate_event(&homes, *host, black_box(ev.as_bytes()))))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
