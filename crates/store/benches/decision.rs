//! Decision cost (SPEC §14), with and without persistent grants to match.
//! Run: `cargo bench -p shellgate-store`.

use std::hint::black_box;

use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion};

#[path = "../../shell/benches/support/cpu_time.rs"]
mod cpu_time;
use shellgate_policy::config::PolicyConfig;
use shellgate_policy::decision::{
    evaluate, Context, GrantRef, Lookups, NoLookups, Policy, Request,
};
use shellgate_policy::fs::OsFs;
use shellgate_policy::{Audience, Channel, Os};
use shellgate_store::Store;

const TYPICAL: &[&str] = &[
    "git status",
    "git push origin main",
    "ls -la src",
    "cat README.md | grep -n TODO",
    "make build > build.log 2>&1",
    "cd sub && npm install lodash",
    "timeout 30 cargo test --workspace -- --nocapture",
    "find . -name '*.rs' -exec wc -l {} +",
];

fn bench_decision<M: Measurement>(c: &mut Criterion<M>) {
    let t = tempfile::tempdir().expect("tempdir");
    let root = t.path().to_string_lossy().to_string();
    let proj = format!("{root}/home/p");
    std::fs::create_dir_all(&proj).expect("mkdir");
    std::fs::create_dir_all(format!("{root}/home/.shellgate/sessions/s1")).expect("mkdir");
    let ctx = Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: Some(proj.clone()),
        session_dir: format!("{root}/home/.shellgate/sessions/s1"),
        home: format!("{root}/home"),
        gate_home: format!("{root}/home/.shellgate"),
        fs: &OsFs,
        run_env: shellgate_policy::RunEnv {
            path: Some("/usr/local/bin:/usr/bin:/bin"),
            xdg_config_home: None,
            cdpath: None,
        },
    };
    let policy = Policy::new(PolicyConfig::default(), &[]);
    let mut g = c.benchmark_group("decision");
    for cmd in TYPICAL {
        let req = Request {
            tool: "shell_execute".into(),
            command: cmd.to_string(),
            working_directory: Some(proj.clone()),
        };
        g.bench_with_input(BenchmarkId::from_parameter(cmd), &req, |b, req| {
            b.iter(|| evaluate(&policy, black_box(req), &ctx, &NoLookups))
        });
    }
    g.finish();
}

/// Lookups over a loaded store (grant matching cost only).
struct StoreLookups<'a> {
    store: &'a Store,
    home: &'a str,
}

impl Lookups for StoreLookups<'_> {
    fn persistent_grant(
        &self,
        audience: Audience,
        tool: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        self.store
            .find(audience, tool, verb, dir, self.home, Os::Linux, &OsFs)
            .map(|g| GrantRef {
                verb: g.verb,
                directory: g.directory,
            })
    }
    fn session_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

fn letters(mut n: usize) -> String {
    let mut s = String::new();
    loop {
        s.push((b'a' + (n % 26) as u8) as char);
        n /= 26;
        if n == 0 {
            return s;
        }
    }
}

fn bench_grants<M: Measurement>(c: &mut Criterion<M>) {
    let t = tempfile::tempdir().expect("tempdir");
    let root = t.path().to_string_lossy().to_string();
    let home = format!("{root}/home");
    let proj = format!("{home}/p");
    std::fs::create_dir_all(&proj).expect("mkdir");
    std::fs::create_dir_all(format!("{home}/.shellgate/sessions/s1")).expect("mkdir");
    let ctx = Context {
        session: "s1".into(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        os: Os::Linux,
        project_dir: None,
        session_dir: format!("{home}/.shellgate/sessions/s1"),
        home: home.clone(),
        gate_home: format!("{home}/.shellgate"),
        fs: &OsFs,
        run_env: shellgate_policy::RunEnv {
            path: Some("/usr/local/bin:/usr/bin:/bin"),
            xdg_config_home: None,
            cdpath: None,
        },
    };
    let policy = Policy::new(PolicyConfig::default(), &[]);
    let req = Request {
        tool: "shell_execute".into(),
        command: "make build".into(),
        working_directory: Some(proj.clone()),
    };
    let mut g = c.benchmark_group("grants");
    for n in [0usize, 10, 1_000, 100_000] {
        // n grants for unrelated verbs (half folder, half anywhere), plus
        // the one that matters.
        let mut entries: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                if i % 2 == 0 {
                    serde_json::json!({"verb": format!("tool-{} run", letters(i)), "directory": format!("{home}/r/{}", letters(i))})
                } else {
                    serde_json::json!({"verb": format!("tool-{} run", letters(i))})
                }
            })
            .collect();
        entries.push(serde_json::json!({"verb": "make build", "directory": proj}));
        let doc = serde_json::json!({"version": 2, "audiences": {"personal": {"shell_execute": entries}}});
        let path = format!("{root}/grants-{n}.json");
        std::fs::write(&path, serde_json::to_string(&doc).expect("json")).expect("write");
        let (store, _) = Store::load(std::path::Path::new(&path)).expect("load");
        let lookups = StoreLookups {
            store: &store,
            home: &home,
        };
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let d = evaluate(&policy, black_box(&req), &ctx, &lookups);
                assert_eq!(d.reason, "granted");
            })
        });
    }
    g.finish();
}

cpu_time::bench_main!(bench_decision, bench_grants);
