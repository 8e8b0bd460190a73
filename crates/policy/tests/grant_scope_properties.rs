//! Properties over real commands (the vendored corpora, repo `corpora/`):
//! - after a persisting answer to a command, a variant that differs only by
//!   its subcommand is not allowed by what was persisted (SPEC §15.8);
//! - re-spelling options as the program's parser accepts them (long-option
//!   abbreviations, `--opt=value` vs `--opt value`) never turns a hard deny
//!   or a complex command into an allow (§15.1, §15.12).

use std::collections::HashSet;
use std::sync::Mutex;

use shellgate_policy::decision::{GrantRef, Lookups};
use shellgate_policy::fs::OsFs;
use shellgate_policy::{evaluate, Audience, Channel, Context, Os, Policy, Request};

/// Exactly the grants persisted by an answer.
#[derive(Default)]
struct Grants(Mutex<HashSet<(String, Option<String>)>>);

impl Lookups for Grants {
    fn persistent_grant(
        &self,
        _: Audience,
        _: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        let g = self.0.lock().ok()?;
        let dir = dir.map(str::to_string);
        g.contains(&(verb.to_string(), dir.clone()))
            .then(|| GrantRef {
                verb: verb.to_string(),
                directory: dir,
            })
    }
    fn session_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

fn corpus() -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpora");
    let mut out = Vec::new();
    for f in ["nl2bash.cmds", "tldr.cmds"] {
        let text = std::fs::read_to_string(root.join(f)).expect("vendored corpus");
        // A deterministic sample keeps the test fast in debug builds.
        out.extend(text.lines().step_by(5).map(str::to_string));
    }
    out
}

struct Scene {
    _tmp: tempfile::TempDir,
    project: String,
    home: String,
    gate: String,
}

fn scene() -> Scene {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path().canonicalize().expect("canonical");
    let home = root.join("home");
    let project = home.join("proj");
    let gate = home.join(".shellgate");
    std::fs::create_dir_all(&project).expect("project");
    std::fs::create_dir_all(gate.join("sessions/s1")).expect("session");
    let s = |p: &std::path::Path| p.to_string_lossy().to_string();
    Scene {
        project: s(&project),
        home: s(&home),
        gate: s(&gate),
        _tmp: tmp,
    }
}

fn ctx(sc: &Scene) -> Context<'static> {
    Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: Some(sc.project.clone()),
        session_dir: format!("{}/sessions/s1", sc.gate),
        home: sc.home.clone(),
        gate_home: sc.gate.clone(),
        fs: &OsFs,
        run_env: shellgate_policy::RunEnv {
            path: Some("/usr/local/bin:/usr/bin:/bin"),
            xdg_config_home: None,
            cdpath: None,
        },
    }
}

fn req(cmd: &str, cwd: &str) -> Request {
    Request {
        tool: "shell_execute".into(),
        command: cmd.to_string(),
        working_directory: Some(cwd.to_string()),
    }
}

#[test]
fn a_persisted_answer_never_covers_another_subcommand() {
    let sc = scene();
    let ctx = ctx(&sc);
    let policy = Policy::new(Default::default(), &[]);
    let mut checked = 0;
    let mut failures = Vec::new();
    for cmd in corpus() {
        let first = evaluate(
            &policy,
            &req(&cmd, &sc.project),
            &ctx,
            &shellgate_policy::NoLookups,
        );
        if first.decision != "ask" || first.complex {
            continue;
        }
        let Some(opts) = &first.options else { continue };
        if !opts.iter().any(|o| o == "approve_always") {
            continue;
        }
        // What "Always here" persists: the unapproved candidates.
        let grants = Grants::default();
        for c in &first.candidates {
            if c.status == shellgate_policy::decision::Status::Unapproved {
                if let Ok(mut g) = grants.0.lock() {
                    g.insert((c.verb.clone(), c.directory.clone()));
                }
            }
        }
        // Each command whose program the model reads with a subcommand:
        // swap that subcommand word for another subcommand of the same
        // program (`kubectl get` → `kubectl delete`).
        let a = shellgate_shell::analyze::analyze(
            &cmd,
            Some(&sc.project),
            &shellgate_shell::analyze::Env {
                home: sc.home.clone(),
                ..Default::default()
            },
        );
        for inv in a.invocations.iter().filter(|i| i.gated && !i.crude) {
            let Some(r) = &inv.reading else { continue };
            let Some(&at) = r.parsed.sub_at.first() else {
                continue;
            };
            let Some(word) = inv.argv.get(at + 1) else {
                continue;
            };
            let current = word.literal().unwrap_or_default();
            let siblings = r.program().root.subs;
            let other = siblings
                .iter()
                .flat_map(|n| n.names.iter())
                .find(|n| **n == "delete" && **n != current)
                .or_else(|| {
                    siblings
                        .iter()
                        .flat_map(|n| n.names.iter())
                        .find(|n| **n != current)
                })
                .copied();
            let Some(other) = other else { continue };
            let chars: Vec<char> = cmd.chars().collect();
            let (s0, len) = (word.start, word.raw.chars().count());
            if s0 + len > chars.len() || chars[s0..s0 + len].iter().collect::<String>() != word.raw
            {
                continue;
            }
            let variant: String = chars[..s0]
                .iter()
                .chain(other.chars().collect::<Vec<_>>().iter())
                .chain(chars[s0 + len..].iter())
                .collect();
            let d = evaluate(&policy, &req(&variant, &sc.project), &ctx, &grants);
            checked += 1;
            if d.decision == "allow" && d.reason == "granted" {
                failures.push(format!(
                    "`{cmd}` persisted its candidates; `{variant}` was allowed"
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} variants checked");
    assert!(
        failures.is_empty(),
        "{} widening grants:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Re-spellings of a command's long options: each `--name[=v]` shortened to
/// a prefix (what getopt_long accepts when unambiguous), and `--name=v`
/// split into `--name v`.
fn respellings(cmd: &str) -> Vec<String> {
    let words: Vec<&str> = cmd.split(' ').collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let Some(body) = w.strip_prefix("--") else {
            continue;
        };
        let (name, value) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        if name.len() < 4 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            continue;
        }
        for cut in [3, name.len() - 1] {
            let mut v = words.clone();
            let short = match value {
                Some(val) => format!("--{}={val}", &name[..cut]),
                None => format!("--{}", &name[..cut]),
            };
            v[i] = &short;
            out.push(v.join(" "));
        }
        if let Some(val) = value {
            let mut v: Vec<String> = words.iter().map(|s| s.to_string()).collect();
            v[i] = format!("--{name} {val}");
            out.push(v.join(" "));
        }
    }
    out
}

#[test]
fn respelled_options_never_turn_deny_or_complex_into_allow() {
    let sc = scene();
    let ctx = ctx(&sc);
    let policy = Policy::new(Default::default(), &[]);
    let mut checked = 0;
    let mut failures = Vec::new();
    let mut cmds = corpus();
    // Plus the hard-deny spellings this issue is about.
    cmds.extend(
        [
            "rm --recursive --force /",
            "chmod --recursive 000 /",
            "sort --compress-program=sh f",
            "git push --force-with-lease origin main",
            "tar --checkpoint-action=exec=id -cf x.tar src",
            "rsync --rsh=sh src/ dst/",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    for cmd in cmds {
        let d = evaluate(
            &policy,
            &req(&cmd, &sc.project),
            &ctx,
            &shellgate_policy::NoLookups,
        );
        let strict = d.decision == "deny" && d.reason.starts_with("hard_deny_");
        if !(strict || d.complex) {
            continue;
        }
        for v in respellings(&cmd) {
            let dv = evaluate(
                &policy,
                &req(&v, &sc.project),
                &ctx,
                &shellgate_policy::NoLookups,
            );
            checked += 1;
            if dv.decision == "allow" {
                failures.push(format!(
                    "`{cmd}` ({} {}) but `{v}` allowed ({})",
                    d.decision, d.reason, dv.reason
                ));
            }
            if strict && dv.decision != "deny" {
                failures.push(format!(
                    "hard deny of `{cmd}` lost in `{v}` ({} {})",
                    dv.decision, dv.reason
                ));
            }
        }
    }
    assert!(checked > 100, "only {checked} variants checked");
    assert!(
        failures.is_empty(),
        "{}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
