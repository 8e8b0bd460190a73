//! Data-driven conformance cases (copied from the shared contract) run
//! through the real binary: `shellgate check --json` per case, in a fresh
//! temporary tree with `HOME` and `SHELLGATE_HOME` pointed into it.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Map, Value};

const CASES: &str = include_str!("conformance/cases.jsonl");
const ADVERSARIAL: &str = include_str!("conformance/adversarial.jsonl");
const SANDBOX: &str = include_str!("conformance/sandbox.jsonl");

struct Tree {
    _tmp: tempfile::TempDir,
    subst: Vec<(&'static str, String)>,
    home: String,
    gate: String,
}

fn tree(session: &str) -> Tree {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp
        .path()
        .canonicalize()
        .expect("canonical tempdir")
        .to_string_lossy()
        .to_string();
    let h = format!("{t}/home");
    let g = format!("{h}/.shellgate");
    let p = format!("{h}/repos/proj");
    let x = format!("{t}/outside");
    let s = format!("{g}/sessions/{session}");
    for d in [&h, &g, &p, &x, &s] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    Tree {
        subst: vec![
            ("{T}", t),
            ("{H}", h.clone()),
            ("{G}", g.clone()),
            ("{P}", p),
            ("{X}", x),
            ("{S}", s),
        ],
        _tmp: tmp,
        home: h,
        gate: g,
    }
}

fn sub(tree: &Tree, v: &Value) -> Value {
    match v {
        Value::String(s) => {
            let mut out = s.clone();
            for (k, val) in &tree.subst {
                out = out.replace(k, val);
            }
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| sub(tree, x)).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), sub(tree, x))).collect())
        }
        other => other.clone(),
    }
}

fn prepare(tree: &Tree, ctx: &Value) {
    if let Some(fs) = ctx.get("fs") {
        for d in fs
            .get("dirs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            std::fs::create_dir_all(d.as_str().unwrap()).unwrap();
        }
        for f in fs
            .get("files")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let f = f.as_str().unwrap();
            std::fs::create_dir_all(Path::new(f).parent().unwrap()).unwrap();
            std::fs::write(f, "").unwrap();
        }
        // Files with contents: `[[path, text]]` (host settings, gitfiles).
        for c in fs
            .get("contents")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let f = c[0].as_str().unwrap();
            std::fs::create_dir_all(Path::new(f).parent().unwrap()).unwrap();
            std::fs::write(f, c[1].as_str().unwrap()).unwrap();
        }
        // Tar archives of empty members: `[[path, [member, …]]]`.
        for c in fs
            .get("tars")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let f = c[0].as_str().unwrap();
            let members: Vec<&str> = c[1]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap())
                .collect();
            std::fs::create_dir_all(Path::new(f).parent().unwrap()).unwrap();
            std::fs::write(f, ustar(&members)).unwrap();
        }
        for l in fs
            .get("symlinks")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let link = l[0].as_str().unwrap();
            let target = l[1].as_str().unwrap();
            std::fs::create_dir_all(Path::new(link).parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(target, link).unwrap();
        }
    }
    if let Some(policy) = ctx.get("policy").and_then(Value::as_str) {
        let cfg = format!("{}/config", tree.gate);
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(format!("{cfg}/policy.toml"), policy).unwrap();
    }
    if let Some(grants) = ctx.get("grants").and_then(Value::as_array) {
        let mut auds = Map::new();
        for g in grants {
            let a = g["audience"].as_str().unwrap_or("personal").to_string();
            let t = g["tool"].as_str().unwrap_or("shell_execute").to_string();
            let mut e = Map::new();
            e.insert("verb".into(), g["verb"].clone());
            if let Some(d) = g.get("directory").filter(|d| !d.is_null()) {
                e.insert("directory".into(), d.clone());
            }
            let tools = auds.entry(a).or_insert_with(|| json!({}));
            let list = tools
                .as_object_mut()
                .unwrap()
                .entry(t)
                .or_insert_with(|| json!([]));
            list.as_array_mut().unwrap().push(Value::Object(e));
        }
        let doc = json!({"version": 2, "audiences": auds});
        let cfg = format!("{}/config", tree.gate);
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(
            format!("{cfg}/tool-approvals.json"),
            serde_json::to_string_pretty(&doc).unwrap(),
        )
        .unwrap();
    }
}

/// A POSIX ustar archive of empty regular files (names under 100 bytes).
fn ustar(members: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    for name in members {
        let mut h = [0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        for (at, field) in [
            (100, &b"0000644\0"[..]),
            (108, b"0000000\0"),
            (116, b"0000000\0"),
            (124, b"00000000000\0"),
            (136, b"00000000000\0"),
            (257, b"ustar\0"),
            (263, b"00"),
        ] {
            h[at..at + field.len()].copy_from_slice(field);
        }
        h[156] = b'0';
        h[148..156].copy_from_slice(b"        ");
        let sum: u32 = h.iter().map(|&b| b as u32).sum();
        h[148..156].copy_from_slice(format!("{sum:06o}\0 ").as_bytes());
        out.extend_from_slice(&h);
    }
    out.extend_from_slice(&[0u8; 1024]);
    out
}

fn run_case(case: &Value) -> Result<(), String> {
    let id = case["id"].as_str().unwrap_or("?");
    let raw_ctx = case.get("context").cloned().unwrap_or(json!({}));
    let session = raw_ctx
        .get("session")
        .and_then(Value::as_str)
        .unwrap_or("s1")
        .to_string();
    let tree = tree(&session);
    let ctx = sub(&tree, &raw_ctx);
    let expect = sub(&tree, &case["expect"]);
    prepare(&tree, &ctx);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shellgate"));
    cmd.env("HOME", &tree.home)
        .env("SHELLGATE_HOME", &tree.gate)
        .env_remove("NO_COLOR");
    // `context.env`: variables of the gate's own environment (the host's,
    // which the command inherits), e.g. a `PATH` with a project's venv.
    for (k, v) in ctx
        .get("env")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if let Some(v) = v.as_str() {
            cmd.env(k, v);
        }
    }
    cmd.arg("check")
        .arg("--json")
        .arg("--session")
        .arg(&session);
    for (key, flag) in [
        ("cwd", "--cwd"),
        ("project_dir", "--project-dir"),
        ("audience", "--audience"),
        ("channel", "--channel"),
        ("os", "--os"),
        ("tool", "--tool"),
    ] {
        if let Some(v) = ctx.get(key).and_then(Value::as_str) {
            cmd.arg(flag).arg(v);
        }
    }
    if ctx.get("os").is_none() {
        cmd.arg("--os").arg("linux");
    }
    cmd.arg("--").arg(case["command"].as_str().unwrap_or(""));
    let out = cmd.output().map_err(|e| format!("{id}: spawn: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let got: Value = serde_json::from_str(stdout.trim()).map_err(|e| {
        format!(
            "{id}: not JSON ({e}): stdout={stdout} stderr={}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    let code = out.status.code().unwrap_or(-1);
    let want_code = match got["decision"].as_str() {
        Some("allow") => 0,
        Some("ask") => 10,
        _ => 11,
    };
    let mut errs = Vec::new();
    if code != want_code {
        errs.push(format!("exit code {code} for decision {}", got["decision"]));
    }
    let e = expect.as_object().cloned().unwrap_or_default();
    for (k, want) in &e {
        let ok = match k.as_str() {
            "decision" | "reason" | "complex" | "patterns" | "display" | "options" => {
                &got[k.as_str()] == want
            }
            "decision_not" => &got["decision"] != want,
            "reason_prefix" => got["reason"]
                .as_str()
                .unwrap_or("")
                .starts_with(want.as_str().unwrap_or("\u{0}")),
            "header" => &got["prompt"]["header"] == want,
            "sandbox_profile" => &got["sandbox"]["profile"] == want,
            "bullets" => &got["prompt"]["bullets"] == want,
            "hint" => &got["prompt"]["hint"] == want || &got["hint"] == want,
            "candidates" => {
                let gc = got["candidates"].as_array().cloned().unwrap_or_default();
                let wc = want.as_array().cloned().unwrap_or_default();
                gc.len() == wc.len()
                    && gc.iter().zip(wc.iter()).all(|(g, w)| {
                        w.as_object()
                            .unwrap()
                            .iter()
                            .all(|(wk, wv)| &g[wk.as_str()] == wv)
                    })
            }
            _ => true,
        };
        if !ok {
            let shown = match k.as_str() {
                "header" | "bullets" => got["prompt"][k.as_str()].clone(),
                "hint" => json!([got["prompt"]["hint"], got["hint"]]),
                "decision_not" | "reason_prefix" => got["reason"].clone(),
                "candidates" => Value::Array(
                    got["candidates"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .iter()
                        .map(|c| json!({"verb": c["verb"], "directory": c["directory"], "status": c["status"]}))
                        .collect(),
                ),
                _ => got[k.as_str()].clone(),
            };
            errs.push(format!("{k}: want {want} got {shown}"));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{id} `{}`: {} [reason {} {:?}]",
            case["command"]
                .as_str()
                .unwrap_or("")
                .chars()
                .take(120)
                .collect::<String>(),
            errs.join("; "),
            got["reason"],
            got["complex_reasons"]
        ))
    }
}

fn run_file(text: &str, prefixes: &[&str]) {
    let cases: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("case JSON"))
        .filter(|c: &Value| {
            let id = c["id"].as_str().unwrap_or("");
            prefixes.iter().any(|p| id.starts_with(p))
        })
        .collect();
    assert!(!cases.is_empty(), "no cases selected");
    let chunks: Vec<Vec<Value>> = cases
        .chunks(cases.len().div_ceil(4))
        .map(|c| c.to_vec())
        .collect();
    let handles: Vec<_> = chunks
        .into_iter()
        .map(|chunk| {
            std::thread::spawn(move || {
                chunk
                    .iter()
                    .filter_map(|c| run_case(c).err())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let failures: Vec<String> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    if !failures.is_empty() {
        panic!(
            "{} of {} cases failed:\n{}",
            failures.len(),
            cases.len(),
            failures.join("\n")
        );
    }
}

#[test]
fn analysis_cases() {
    run_file(CASES, &["verb-", "cand-", "pat-", "disp-", "cx-"]);
}

#[test]
fn decision_cases() {
    run_file(CASES, &["dec-", "opt-", "hd-", "prot-", "zone-", "file-"]);
}

#[test]
fn adversarial_cases() {
    run_file(ADVERSARIAL, &["adv-"]);
}

/// SPEC §18 cases: they need a kernel that can confine (the sandboxed
/// allow is only offered there).
#[test]
fn sandbox_cases() {
    if let Err(e) = shellgate_sandbox::support() {
        if std::env::var_os("SHELLGATE_REQUIRE_SANDBOX").is_some() {
            panic!("the kernel cannot confine and SHELLGATE_REQUIRE_SANDBOX is set: {e}");
        }
        eprintln!("SKIPPED: the kernel cannot confine here: {e}");
        return;
    }
    run_file(SANDBOX, &["sbx-"]);
}

/// Our own red-team findings and must-allow neighbours, one file per class
/// (`tests/conformance/redteam/<class>.jsonl`, same case shape).
#[test]
fn redteam_cases() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/redteam");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("redteam case directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut text = String::new();
    for f in &files {
        text.push_str(&std::fs::read_to_string(f).expect("readable case file"));
        text.push('\n');
    }
    if text.trim().is_empty() {
        return;
    }
    run_file(&text, &[""]);
}
