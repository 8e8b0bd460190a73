//! Analysis cost (SPEC §14). Run: `cargo bench -p shellgate-shell`.

use std::hint::black_box;

use criterion::measurement::Measurement;
use criterion::{BenchmarkId, Criterion, Throughput};

#[path = "support/cpu_time.rs"]
mod cpu_time;
use shellgate_shell::analyze::{analyze, Env};
use shellgate_shell::display::display;
use shellgate_shell::parse::parse;

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

fn bench<M: Measurement>(c: &mut Criterion<M>) {
    let env = Env {
        home: "/home/u".into(),
        ..Default::default()
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
}

fn bench_text<M: Measurement>(c: &mut Criterion<M>) {
    let env = Env {
        home: "/home/u".into(),
        ..Default::default()
    };
    let script: String = (0..120)
        .map(|i| format!("cp src/file{i}.txt build/out{i}.txt && echo copied {i}\n"))
        .collect::<String>()
        .chars()
        .take(4096)
        .collect();
    let nested = format!("echo {}hi{}", "$(echo ".repeat(8), ")".repeat(8));
    let mut g = c.benchmark_group("long");
    g.bench_function("script_4k", |b| {
        b.iter(|| analyze(black_box(&script), Some("/home/u/p"), &env))
    });
    g.bench_function("nested_substitutions_8", |b| {
        b.iter(|| analyze(black_box(&nested), Some("/home/u/p"), &env))
    });
    g.bench_function("display_multiline_4k", |b| {
        let parsed = parse(&script, 0).ok();
        b.iter(|| display(black_box(&script), parsed.as_ref()))
    });
    g.finish();
}

cpu_time::bench_main!(bench, bench_text);
