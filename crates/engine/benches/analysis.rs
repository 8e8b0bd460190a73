//! Analysis and decision cost (SPEC §14). Run: `cargo bench -p shellgate-engine`.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use shellgate_engine::analyze::{analyze, Env};
use shellgate_engine::config::PolicyConfig;
use shellgate_engine::policy::{evaluate, Context, NoLookups, Policy, Request};
use shellgate_engine::{Audience, Channel, Os};

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

fn corpus() -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpora");
    let mut v = Vec::new();
    for f in ["nl2bash.cmds", "tldr.cmds"] {
        if let Ok(t) = std::fs::read_to_string(format!("{root}/{f}")) {
            v.extend(t.lines().map(str::to_string));
        }
    }
    v
}

fn bench(c: &mut Criterion) {
    let env = Env {
        home: "/home/u".into(),
    };
    let mut g = c.benchmark_group("analysis");
    for cmd in TYPICAL {
        g.bench_with_input(BenchmarkId::from_parameter(cmd), cmd, |b, cmd| {
            b.iter(|| analyze(black_box(cmd), Some("/home/u/p"), &env))
        });
    }
    g.finish();

    let corpus = corpus();
    let mut g = c.benchmark_group("corpus");
    g.sample_size(10);
    g.throughput(Throughput::Elements(corpus.len() as u64));
    g.bench_function("analyze_all", |b| {
        b.iter(|| {
            for cmd in &corpus {
                black_box(analyze(cmd, Some("/home/u/p"), &env));
            }
        })
    });
    g.finish();

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

criterion_group!(benches, bench);
criterion_main!(benches);
