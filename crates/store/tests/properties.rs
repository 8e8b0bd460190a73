//! Property tests of invariants the gate must keep for any input: an
//! offered approval, once persisted in the grant file or as session
//! grants, allows the same call on re-check.

use std::cell::RefCell;
use std::path::PathBuf;

use proptest::prelude::*;
use shellgate_policy::config::PolicyConfig;
use shellgate_policy::decision::{self, Context, GrantRef, Lookups, Policy, Request};
use shellgate_policy::fs::OsFs;
use shellgate_policy::{Audience, Channel, Os};
use shellgate_store::grant_file::{self, Store};

/// Lookups backed by a real store file and in-memory session grants.
struct Real {
    store_path: PathBuf,
    home: String,
    session: RefCell<Vec<(String, Option<String>)>>,
}

impl Lookups for Real {
    fn persistent_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        let (s, _) = Store::load(&self.store_path).ok()?;
        s.find(audience, tool, verb, dir, &self.home, Os::Linux, &OsFs)
            .map(|g| GrantRef {
                verb: g.verb,
                directory: g.directory,
            })
    }
    fn session_grant(
        &self,
        _: Audience,
        _: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        self.session
            .borrow()
            .iter()
            .find(|(v, d)| {
                grant_file::grant_covers(v, d.as_deref(), verb, dir, &self.home, Os::Linux, &OsFs)
            })
            .map(|(v, d)| GrantRef {
                verb: v.clone(),
                directory: d.clone(),
            })
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

fn simple_command() -> impl Strategy<Value = String> {
    let verbs = prop::sample::select(vec![
        "make build",
        "git push origin main",
        "cat",
        "ls -la",
        "npm install lodash",
        "cp",
        "rm -f",
        "touch",
        "docker compose up -d",
        "python3",
        "curl -o",
        "mkdir -p",
        "git commit -m wip",
        "kubectl get pods",
        "head -n 5",
        "wc -l",
        "echo hi",
    ]);
    let args = prop::collection::vec(
        prop::sample::select(vec![
            "a.txt",
            "src/main.rs",
            "../x.txt",
            "/tmp/y.log",
            "~/z.md",
            "./out",
            "sub",
            "notes",
            "/var/tmp/q.txt",
            "-v",
        ]),
        0..3,
    );
    let redirect = prop::option::of(prop::sample::select(vec![
        "> out.log",
        ">> /tmp/r.log",
        "2>/dev/null",
        "< a.txt",
    ]));
    (verbs, args, redirect).prop_map(|(v, a, r)| {
        let mut s = v.to_string();
        for x in a {
            s.push(' ');
            s.push_str(x);
        }
        if let Some(r) = r {
            s.push(' ');
            s.push_str(r);
        }
        s
    })
}

fn command() -> impl Strategy<Value = String> {
    let sep = prop::sample::select(vec![" && ", "; ", " | ", " || "]);
    (
        simple_command(),
        prop::collection::vec((sep, simple_command()), 0..3),
    )
        .prop_map(|(first, rest)| {
            let mut s = first;
            for (sep, c) in rest {
                s.push_str(sep);
                s.push_str(&c);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    /// Re-checking a call right after an offered approve option (other than
    /// once) allows it, unless the answer reported something as skipped.
    #[test]
    fn approving_then_rechecking_allows(
        cmd in command(),
        option in prop::sample::select(vec!["approve_session", "approve_always", "approve_everywhere"]),
        cwd_choice in 0usize..3,
    ) {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap().to_string_lossy().to_string();
        let home = format!("{root}/home");
        let gate = format!("{home}/.shellgate");
        let proj = format!("{home}/repos/proj");
        std::fs::create_dir_all(format!("{proj}/sub")).unwrap();
        std::fs::create_dir_all(format!("{root}/outside")).unwrap();
        std::fs::create_dir_all(format!("{gate}/sessions/s1")).unwrap();
        let cwd = match cwd_choice {
            0 => proj.clone(),
            1 => format!("{proj}/sub"),
            _ => format!("{root}/outside"),
        };
        let ctx = Context {
            session: "s1".into(),
            audience: Audience::Personal,
            channel: Channel::Interactive,
            os: Os::Linux,
            project_dir: None,
            session_dir: format!("{gate}/sessions/s1"),
            home: home.clone(),
            gate_home: gate.clone(),
            fs: &OsFs,
            run_env: shellgate_policy::RunEnv { path: Some("/usr/local/bin:/usr/bin:/bin"), xdg_config_home: None, cdpath: None },
        };
        let pol = Policy::new(PolicyConfig::default(), &[]);
        let req = Request { tool: "shell_execute".into(), command: cmd.clone(), working_directory: Some(cwd) };
        let lookups = Real {
            store_path: PathBuf::from(format!("{gate}/config/tool-approvals.json")),
            home: home.clone(),
            session: RefCell::new(Vec::new()),
        };
        let first = decision::evaluate(&pol, &req, &ctx, &lookups);
        prop_assume!(first.decision == "ask" && !first.complex);
        let offered = first.options.clone().unwrap_or_default();
        prop_assume!(offered.iter().any(|o| o == option));
        let plan = decision::plan_answer(&first, option, &ctx);
        if !plan.store.is_empty() {
            grant_file::add(&lookups.store_path, Audience::Personal, "shell_execute", &plan.store, Os::Linux).unwrap();
        }
        lookups.session.borrow_mut().extend(plan.session.iter().cloned());
        let second = decision::evaluate(&pol, &req, &ctx, &lookups);
        if plan.skipped.is_empty() {
            prop_assert_eq!(second.decision, "allow", "{} after {}: {:?} / {:?}", cmd, option, second.reason, second.candidates);
        } else {
            prop_assert!(second.decision != "deny");
        }
    }
}
