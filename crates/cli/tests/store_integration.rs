//! The persistent grant store (`config/tool-approvals.json`, SPEC §6, §11,
//! §12.1) exercised through the real binary: many concurrent writer
//! processes, writers killed with SIGKILL at random instants, a hand-written
//! netclaw file, and quarantine of unusable files.
//!
//! Every test runs `shellgate` with `HOME` and `SHELLGATE_HOME` pointed into
//! a fresh temporary tree. Verbs are spelled with letters only: a trailing
//! word containing a digit would be trimmed from the verb (SPEC §4.1 step 4).

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

const BIN: &str = env!("CARGO_BIN_EXE_shellgate");

/// A temporary tree: `<root>/home` is `HOME`, `<root>/home/.shellgate` is
/// `SHELLGATE_HOME`, `<root>/home/work/proj` an ordinary working directory.
struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    gate: PathBuf,
    work: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().expect("tempdir");
        // Canonical: a symlinked /tmp must not trip the symlink rule (§5.4).
        let root = tmp.path().canonicalize().expect("canonical tempdir");
        let home = root.join("home");
        let gate = home.join(".shellgate");
        let work = home.join("work").join("proj");
        for d in [&home, &gate, &work] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        Env {
            _tmp: tmp,
            root,
            home,
            gate,
            work,
        }
    }

    fn config_dir(&self) -> PathBuf {
        self.gate.join("config")
    }

    fn store(&self) -> PathBuf {
        self.config_dir().join("tool-approvals.json")
    }

    /// `<store><suffix>`, e.g. `tool-approvals.json.invalid`.
    fn sibling(&self, suffix: &str) -> PathBuf {
        PathBuf::from(format!("{}{suffix}", self.store().display()))
    }

    fn work_str(&self) -> String {
        self.work.to_string_lossy().into_owned()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .env("HOME", &self.home)
            .env("SHELLGATE_HOME", &self.gate)
            .current_dir(&self.work)
            .stdin(Stdio::null());
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run shellgate {args:?}: {e}"))
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot spawn shellgate {args:?}: {e}"))
    }

    /// `decide --option approve_everywhere` for `command` (one grant).
    fn decide_args<'a>(&'a self, work: &'a str, command: &'a str) -> Vec<&'a str> {
        vec![
            "decide",
            "--option",
            "approve_everywhere",
            "--session",
            "s1",
            "--cwd",
            work,
            "--",
            command,
        ]
    }

    /// `check --json` in `cwd`; returns (exit code, decision object).
    fn check(&self, cwd: &Path, command: &str) -> (i32, Value) {
        let cwd = cwd.to_string_lossy().into_owned();
        let out = self.run(&[
            "check",
            "--json",
            "--session",
            "s1",
            "--cwd",
            &cwd,
            "--",
            command,
        ]);
        let code = out.status.code().unwrap_or(-1);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "check of {command:?} in {cwd}: stdout is not JSON ({e}); exit {code}\nstdout: {}\nstderr: {}",
                text(&out.stdout),
                text(&out.stderr)
            )
        });
        (code, v)
    }

    fn read_store_text(&self) -> String {
        std::fs::read_to_string(self.store()).expect("read tool-approvals.json")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    )
}

/// `n` spelled in base 26 with the letters a–z, at least `width` letters.
fn letters(mut n: usize, width: usize) -> String {
    let mut out = Vec::new();
    loop {
        let digit = u8::try_from(n % 26).expect("below 26");
        out.push(char::from(b'a' + digit));
        n /= 26;
        if n == 0 && out.len() >= width {
            break;
        }
    }
    out.iter().rev().collect()
}

/// Strictly parse a store file as written by this program (no comments, no
/// trailing commas) and check the version.
fn parse_v2(raw: &str, context: &str) -> Value {
    let v: Value = serde_json::from_str(raw)
        .unwrap_or_else(|e| panic!("{context}: the store is not valid JSON ({e}):\n{raw}"));
    assert_eq!(
        v.get("version"),
        Some(&json!(2)),
        "{context}: the store is not version 2:\n{raw}"
    );
    v
}

/// The entries of `audiences.personal.shell_execute` (empty when absent).
fn personal_shell(v: &Value) -> Vec<Value> {
    v.pointer("/audiences/personal/shell_execute")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn verbs_of(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|e| {
            e.get("verb")
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("entry without a string verb: {e}"))
                .to_string()
        })
        .collect()
}

/// `YYYY-MM-DDTHH:MM:SS+00:00`.
fn is_utc_seconds(s: &str) -> bool {
    let pattern = "dddd-dd-ddTdd:dd:dd+00:00";
    s.len() == pattern.len()
        && s.bytes().zip(pattern.bytes()).all(|(c, p)| match p {
            b'd' => c.is_ascii_digit(),
            _ => c == p,
        })
}

/// Every line is indented by exactly two spaces per level of nesting of
/// the brackets open at its start (a line starting with a closing bracket
/// belongs to the outer level). Returns the first offending line.
fn indentation_error(raw: &str) -> Option<String> {
    let mut depth: usize = 0;
    let mut in_string = false;
    let mut escaped = false;
    for (number, line) in raw.lines().enumerate() {
        let body = line.trim_start_matches(' ');
        if body.starts_with('\t') {
            return Some(format!("line {}: tab indentation: {line:?}", number + 1));
        }
        let indent = line.len() - body.len();
        let closes_first = body.starts_with('}') || body.starts_with(']');
        let expected = 2 * if closes_first {
            depth.saturating_sub(1)
        } else {
            depth
        };
        if !body.is_empty() && !in_string && indent != expected {
            return Some(format!(
                "line {}: {indent} spaces, expected {expected}: {line:?}",
                number + 1
            ));
        }
        for c in line.chars() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
                continue;
            }
            match c {
                '"' => in_string = true,
                '{' | '[' => depth += 1,
                '}' | ']' => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    None
}

/// Small deterministic generator for kill delays (seed printed on failure).
struct XorShift(u64);

impl XorShift {
    fn from_env_or_clock() -> XorShift {
        let seed = std::env::var("SHELLGATE_TEST_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or_else(|| {
                let nanos = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos())
                    .unwrap_or(0);
                u64::try_from(nanos % u128::from(u64::MAX)).unwrap_or(1)
            });
        XorShift(seed.max(1))
    }

    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

// ---------------------------------------------------------------------------
// 1. Concurrency: 16 writers × 200 grants, no update lost
// ---------------------------------------------------------------------------

const WRITERS: usize = 16;
const GRANTS_PER_WRITER: usize = 200;

fn concurrent_verb(writer: usize, n: usize) -> String {
    format!("sgwriter-{} item-{}", letters(writer, 1), letters(n, 2))
}

#[test]
fn concurrent_writers_lose_no_grant() {
    let env = Arc::new(Env::new());
    let barrier = Arc::new(Barrier::new(WRITERS));
    let started = Instant::now();
    let handles: Vec<_> = (0..WRITERS)
        .map(|w| {
            let env = Arc::clone(&env);
            let barrier = Arc::clone(&barrier);
            std::thread::spawn(move || -> Result<(), String> {
                let work = env.work_str();
                barrier.wait();
                for n in 0..GRANTS_PER_WRITER {
                    let verb = concurrent_verb(w, n);
                    let out = env.run(&env.decide_args(&work, &verb));
                    let expected = format!("Saved: {verb} anywhere");
                    if !out.status.success() || !text(&out.stdout).contains(&expected) {
                        return Err(format!(
                            "writer {w}, grant {n} ({verb}): expected {expected:?}; {}",
                            describe(&out)
                        ));
                    }
                }
                Ok(())
            })
        })
        .collect();
    let mut failures = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(e),
            Err(_) => failures.push("a writer thread panicked".to_string()),
        }
    }
    let elapsed = started.elapsed();
    eprintln!(
        "concurrency: {} decide processes ({WRITERS} writers × {GRANTS_PER_WRITER}) in {:.1} s",
        WRITERS * GRANTS_PER_WRITER,
        elapsed.as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "writer failures:\n{}",
        failures.join("\n")
    );

    let raw = env.read_store_text();
    let doc = parse_v2(&raw, "after the concurrent writers");
    let entries = personal_shell(&doc);
    let verbs = verbs_of(&entries);
    let distinct: HashSet<&str> = verbs.iter().map(String::as_str).collect();
    assert_eq!(
        distinct.len(),
        verbs.len(),
        "duplicate entries in the store"
    );
    let missing: Vec<String> = (0..WRITERS)
        .flat_map(|w| (0..GRANTS_PER_WRITER).map(move |n| concurrent_verb(w, n)))
        .filter(|v| !distinct.contains(v.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of {} grants lost (first: {:?})",
        missing.len(),
        WRITERS * GRANTS_PER_WRITER,
        missing.iter().take(5).collect::<Vec<_>>()
    );
    assert_eq!(
        verbs.len(),
        WRITERS * GRANTS_PER_WRITER,
        "unexpected extra entries"
    );
    for e in &entries {
        assert!(
            e.get("directory").is_none(),
            "a grant for anywhere must be written without a directory key: {e}"
        );
        let created = e.get("createdAt").and_then(Value::as_str).unwrap_or("");
        assert!(is_utc_seconds(created), "bad createdAt in {e}");
    }
    assert!(
        !env.sibling(".tmp").exists(),
        "a temporary file was left behind after clean exits"
    );
    // Each per-writer sequence was written in order: a writer's grants
    // appear in the file in the order it added them.
    for w in 0..WRITERS {
        let prefix = format!("sgwriter-{} ", letters(w, 1));
        let own: Vec<&String> = verbs.iter().filter(|v| v.starts_with(&prefix)).collect();
        let expected: Vec<String> = (0..GRANTS_PER_WRITER)
            .map(|n| concurrent_verb(w, n))
            .collect();
        assert!(
            own.iter()
                .map(|s| s.as_str())
                .eq(expected.iter().map(String::as_str)),
            "writer {w}'s grants are not in insertion order"
        );
    }
}

// ---------------------------------------------------------------------------
// 2. Crash safety: writers killed with SIGKILL at random instants
// ---------------------------------------------------------------------------

/// The store after a kill: absent (only when nothing was ever saved) or a
/// complete version-2 document holding every confirmed grant and nothing
/// but confirmed or possibly-written grants.
fn check_after_kill(
    env: &Env,
    confirmed: &[String],
    possible: &HashSet<String>,
    may_be_absent: bool,
    context: &str,
) {
    let raw = match std::fs::read_to_string(env.store()) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            assert!(
                may_be_absent,
                "{context}: the store disappeared although grants were saved"
            );
            return;
        }
        Err(e) => panic!("{context}: cannot read the store: {e}"),
    };
    let doc = parse_v2(&raw, context);
    let verbs = verbs_of(&personal_shell(&doc));
    let present: HashSet<&str> = verbs.iter().map(String::as_str).collect();
    assert_eq!(present.len(), verbs.len(), "{context}: duplicate entries");
    for v in confirmed {
        assert!(
            present.contains(v.as_str()),
            "{context}: the saved grant {v:?} is gone"
        );
    }
    let known: HashSet<&str> = confirmed
        .iter()
        .map(String::as_str)
        .chain(possible.iter().map(String::as_str))
        .collect();
    for v in &verbs {
        assert!(
            known.contains(v.as_str()),
            "{context}: unexpected entry {v:?} in the store"
        );
    }
}

/// Either writer, by index: `approvals trust-verb` or `decide`.
fn writer_args<'a>(env: &'a Env, work: &'a str, verb: &'a str, i: usize) -> Vec<&'a str> {
    if i.is_multiple_of(2) {
        vec!["approvals", "trust-verb", verb]
    } else {
        env.decide_args(work, verb)
    }
}

fn saved(stdout: &str, verb: &str) -> bool {
    stdout.contains(&format!("Trusted '{verb} anywhere'"))
        || stdout.contains(&format!("Saved: {verb} anywhere"))
}

/// One kill loop; returns how many writers died by the signal.
fn kill_loop(
    env: &Env,
    rng: &mut XorShift,
    seed: u64,
    phase: &str,
    iterations: usize,
    confirmed: &mut Vec<String>,
    possible: &mut HashSet<String>,
) -> usize {
    use std::os::unix::process::ExitStatusExt;

    let work = env.work_str();
    let mut killed = 0;
    for i in 0..iterations {
        let verb = format!("crash-{phase} item-{}", letters(i, 2));
        let delay = Duration::from_millis(rng.next() % 31);
        let context = format!("{phase} iteration {i} (delay {delay:?}, seed {seed})");
        let mut child = env.spawn(&writer_args(env, &work, &verb, i));
        std::thread::sleep(delay);
        // SIGKILL on Unix; harmless if the process already exited.
        child.kill().expect("kill the writer");
        let out = child.wait_with_output().expect("wait for the writer");
        if out.status.success() {
            assert!(
                saved(&text(&out.stdout), &verb),
                "{context}: writer exited 0 without saving: {}",
                describe(&out)
            );
            confirmed.push(verb);
        } else {
            assert_eq!(
                out.status.signal(),
                Some(9),
                "{context}: writer failed without being killed: {}",
                describe(&out)
            );
            killed += 1;
            possible.insert(verb);
        }
        check_after_kill(env, confirmed, possible, confirmed.is_empty(), &context);

        // Whatever the kill left behind (a stale temporary file, the lock
        // file), the next writer must succeed and keep everything.
        let next = format!("after-{phase} item-{}", letters(i, 2));
        let out = env.run(&writer_args(env, &work, &next, i + 1));
        assert!(
            out.status.success() && saved(&text(&out.stdout), &next),
            "{context}: the writer after the kill failed: {}",
            describe(&out)
        );
        confirmed.push(next);
        check_after_kill(env, confirmed, possible, false, &context);
    }
    killed
}

#[test]
fn killed_writers_leave_old_or_new_complete_file() {
    let mut rng = XorShift::from_env_or_clock();
    let seed = rng.0;

    // Phase A: starting without a file (absent is fine until a save).
    let env = Env::new();
    let mut confirmed = Vec::new();
    let mut possible = HashSet::new();
    let killed_a = kill_loop(
        &env,
        &mut rng,
        seed,
        "empty",
        10,
        &mut confirmed,
        &mut possible,
    );

    // Phase B: a store of 1,000 grants, so that a writer lives about as
    // long as the longest delay (20–40 ms for a debug build) and kills land
    // at every stage, the write and the rename included.
    let env = Env::new();
    std::fs::create_dir_all(env.config_dir()).expect("mkdir config");
    let bulk: Vec<Value> = (0..1000)
        .map(|n| {
            json!({
                "verb": format!("bulk-tool item-{}", letters(n, 3)),
                "createdAt": "2026-05-01T12:00:00+00:00"
            })
        })
        .collect();
    let mut confirmed: Vec<String> = verbs_of(&bulk);
    let initial = json!({
        "version": 2,
        "audiences": { "personal": { "shell_execute": bulk } }
    });
    std::fs::write(
        env.store(),
        serde_json::to_string_pretty(&initial).expect("serialize"),
    )
    .expect("write the initial store");
    let mut possible = HashSet::new();
    let killed_b = kill_loop(
        &env,
        &mut rng,
        seed,
        "filled",
        30,
        &mut confirmed,
        &mut possible,
    );
    eprintln!("crash safety: {killed_a} + {killed_b} writers killed by SIGKILL (seed {seed})");
    assert!(
        killed_a + killed_b >= 5,
        "too few writers were actually killed ({killed_a} + {killed_b}) for the test to mean anything (seed {seed})"
    );

    // A partial temporary file from an earlier crash must not break the
    // next write, nor end up as the store.
    std::fs::write(
        env.sibling(".tmp"),
        b"{\"version\": 2, \"audiences\": {\"pers",
    )
    .expect("plant a partial temporary file");
    let out = env.run(&["approvals", "trust-verb", "final-tool check"]);
    assert!(
        out.status.success() && saved(&text(&out.stdout), "final-tool check"),
        "the writer after a stale temporary file failed: {}",
        describe(&out)
    );
    confirmed.push("final-tool check".to_string());
    check_after_kill(
        &env,
        &confirmed,
        &possible,
        false,
        "after the stale temp file",
    );
    assert!(
        !env.sibling(".tmp").exists(),
        "the stale temporary file is still there after a successful write"
    );
    let (code, d) = env.check(&env.work, "final-tool check");
    assert_eq!((code, d["reason"].as_str()), (0, Some("granted")), "{d}");
}

// ---------------------------------------------------------------------------
// 3. netclaw compatibility: a hand-written v2 file, read and rewritten
// ---------------------------------------------------------------------------

#[test]
fn netclaw_file_is_read_and_rewritten_compatibly() {
    let env = Env::new();
    let app = env.root.join("work").join("app");
    let sub = app.join("sub").join("deep");
    let sibling = env.root.join("work").join("appsecret");
    let elsewhere = env.root.join("elsewhere");
    for d in [&sub, &sibling, &elsewhere] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let app_s = app.to_string_lossy().into_owned();
    std::fs::create_dir_all(env.config_dir()).expect("mkdir config");
    let hand = format!(
        r#"// written by netclaw
{{
  "version": 2, // schema
  "netclawMeta": {{ "writer": "netclaw", "flags": [1, 2, 3] }},
  "audiences": {{
    "personal": {{
      "shell_execute": [
        // a grant for anywhere, written with an explicit null
        {{ "verb": "deploy-tool push", "directory": null, "createdAt": "2026-05-01T12:00:00+00:00" }},
        {{ "verb": "make-tool build", "directory": "{app_s}", "createdAt": "2026-05-02T08:30:00+00:00", "approvedBy": "telegram:alice", }},
        {{ "verb": "freshdesk" }},
      ],
    }},
  }},
}}
"#
    );
    std::fs::write(env.store(), &hand).expect("write the netclaw file");

    // The null-directory grant covers every directory.
    for cwd in [&env.work, &sibling, &elsewhere, &sub] {
        let (code, d) = env.check(cwd, "deploy-tool push");
        assert_eq!(code, 0, "deploy-tool push in {}: {d}", cwd.display());
        assert_eq!(d["decision"], "allow", "{d}");
        assert_eq!(d["reason"], "granted", "{d}");
        assert_eq!(
            d["candidates"][0]["grant"],
            json!({"verb": "deploy-tool push", "directory": null}),
            "{d}"
        );
    }
    // The folder grant covers the folder and below …
    for cwd in [&app, &sub] {
        let (code, d) = env.check(cwd, "make-tool build");
        assert_eq!(code, 0, "make-tool build in {}: {d}", cwd.display());
        assert_eq!(d["reason"], "granted", "{d}");
        assert_eq!(
            d["candidates"][0]["grant"],
            json!({"verb": "make-tool build", "directory": app_s}),
            "{d}"
        );
    }
    // … but not a sibling sharing its name as a prefix, nor elsewhere.
    for cwd in [&sibling, &elsewhere] {
        let (code, d) = env.check(cwd, "make-tool build");
        assert_eq!(code, 10, "make-tool build in {}: {d}", cwd.display());
        assert_eq!(d["decision"], "ask", "{d}");
        assert_eq!(d["reason"], "approval_required", "{d}");
        assert_eq!(d["candidates"][0]["status"], "unapproved", "{d}");
    }
    // An entry without createdAt is a valid grant.
    let (code, d) = env.check(&elsewhere, "freshdesk");
    assert_eq!((code, d["reason"].as_str()), (0, Some("granted")), "{d}");

    // Reading never rewrites the file.
    assert_eq!(env.read_store_text(), hand, "a read changed the file");

    let out = env.run(&["approvals", "list"]);
    assert!(out.status.success(), "approvals list: {}", describe(&out));
    let listed = text(&out.stdout);
    let expected_list = format!(
        "personal / shell_execute\n  deploy-tool push anywhere\n  freshdesk anywhere\n  make-tool build in {app_s}\n"
    );
    assert_eq!(listed, expected_list, "approvals list output");

    // Add a grant: the file is rewritten.
    let out = env.run(&["approvals", "trust-verb", "new-tool sync"]);
    assert!(out.status.success(), "trust-verb: {}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        "Trusted 'new-tool sync anywhere' for personal / shell_execute.\n"
    );

    let raw = env.read_store_text();
    if let Some(err) = indentation_error(&raw) {
        panic!("the rewritten file is not indented with 2 spaces: {err}\n{raw}");
    }
    assert!(!raw.contains("//"), "comments written back:\n{raw}");
    let doc = parse_v2(&raw, "after trust-verb");
    let root = doc.as_object().expect("root object");
    assert_eq!(
        root.get("netclawMeta"),
        Some(&json!({ "writer": "netclaw", "flags": [1, 2, 3] })),
        "unknown root key not preserved:\n{raw}"
    );
    let entries = personal_shell(&doc);
    assert_eq!(
        verbs_of(&entries),
        [
            "deploy-tool push",
            "make-tool build",
            "freshdesk",
            "new-tool sync"
        ],
        "entry order not kept:\n{raw}"
    );
    let obj = |i: usize| -> &Map<String, Value> { entries[i].as_object().expect("entry object") };
    assert_eq!(
        Value::Object(obj(0).clone()),
        json!({ "verb": "deploy-tool push", "createdAt": "2026-05-01T12:00:00+00:00" }),
        "the null-directory grant must be written without a directory key:\n{raw}"
    );
    assert!(!obj(0).contains_key("directory"), "{raw}");
    assert_eq!(
        Value::Object(obj(1).clone()),
        json!({
            "verb": "make-tool build",
            "directory": app_s,
            "createdAt": "2026-05-02T08:30:00+00:00",
            "approvedBy": "telegram:alice"
        }),
        "folder grant (with its unknown key) not kept as it was:\n{raw}"
    );
    assert_eq!(
        Value::Object(obj(2).clone()),
        json!({ "verb": "freshdesk" }),
        "an entry without createdAt changed:\n{raw}"
    );
    let new = obj(3);
    assert_eq!(new.get("verb"), Some(&json!("new-tool sync")), "{raw}");
    assert!(!new.contains_key("directory"), "{raw}");
    let created = new.get("createdAt").and_then(Value::as_str).unwrap_or("");
    assert!(
        is_utc_seconds(created),
        "createdAt of the new entry is {created:?}, expected YYYY-MM-DDTHH:MM:SS+00:00"
    );
    // Keys of the new entry in the netclaw order.
    assert_eq!(
        new.keys().map(String::as_str).collect::<Vec<_>>(),
        ["verb", "createdAt"],
        "{raw}"
    );

    // The rewritten file still means the same.
    let (code, d) = env.check(&elsewhere, "deploy-tool push");
    assert_eq!((code, d["reason"].as_str()), (0, Some("granted")), "{d}");
    let (code, d) = env.check(&sibling, "make-tool build");
    assert_eq!(code, 10, "{d}");
    let (code, d) = env.check(&sub, "new-tool sync");
    assert_eq!((code, d["reason"].as_str()), (0, Some("granted")), "{d}");

    // Trusting it again changes nothing (createdAt kept).
    let before = env.read_store_text();
    let out = env.run(&["approvals", "trust-verb", "new-tool sync"]);
    assert!(out.status.success(), "{}", describe(&out));
    assert_eq!(
        text(&out.stdout),
        "No changes: 'new-tool sync anywhere' is already trusted for personal / shell_execute.\n"
    );
    assert_eq!(
        env.read_store_text(),
        before,
        "a no-op add rewrote the file"
    );
}

// ---------------------------------------------------------------------------
// 4. Quarantine through the CLI
// ---------------------------------------------------------------------------

#[test]
fn malformed_file_is_quarantined_with_a_warning() {
    let env = Env::new();
    std::fs::create_dir_all(env.config_dir()).expect("mkdir config");
    let garbage = b"{ this is not json at all ]\n";
    std::fs::write(env.store(), garbage).expect("write garbage");
    let invalid = env.sibling(".invalid");
    let warning = format!(
        "Warning: A malformed approvals file was quarantined to '{}'.",
        invalid.display()
    );

    let out = env.run(&["approvals", "list"]);
    assert!(out.status.success(), "approvals list: {}", describe(&out));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&warning),
        "the run that quarantined the file must print {warning:?}; {}",
        describe(&out)
    );
    assert!(
        stdout.contains("No persistent approvals."),
        "{}",
        describe(&out)
    );
    assert!(
        !env.store().exists(),
        "the malformed file is still in place"
    );
    assert_eq!(
        std::fs::read(&invalid).expect("read the quarantined file"),
        garbage,
        "the quarantined file must keep the original bytes"
    );

    // The note stays while the quarantined file exists; writes work again.
    let out = env.run(&["approvals", "trust-verb", "fresh-tool run"]);
    assert!(out.status.success(), "trust-verb: {}", describe(&out));
    assert!(text(&out.stdout).contains(&warning), "{}", describe(&out));
    let doc = parse_v2(&env.read_store_text(), "after quarantine");
    assert_eq!(verbs_of(&personal_shell(&doc)), ["fresh-tool run"]);
    assert_eq!(std::fs::read(&invalid).expect("read"), garbage);
}

#[test]
fn file_without_version_is_backed_up_as_v1() {
    let env = Env::new();
    std::fs::create_dir_all(env.config_dir()).expect("mkdir config");
    let old = br#"{"audiences": {"personal": {"shell_execute": [{"verb": "old-tool run"}]}}}"#;
    std::fs::write(env.store(), old).expect("write v1 file");
    let backup = env.sibling(".v1.bak");
    let note = format!(
        "Note: Your previous approvals were quarantined to '{}' during the v2 schema upgrade.",
        backup.display()
    );

    let out = env.run(&["approvals", "list"]);
    assert!(out.status.success(), "approvals list: {}", describe(&out));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&note),
        "the run that quarantined the file must print {note:?}; {}",
        describe(&out)
    );
    assert!(
        stdout.contains("No persistent approvals."),
        "{}",
        describe(&out)
    );
    assert!(!env.store().exists(), "the v1 file is still in place");
    assert_eq!(std::fs::read(&backup).expect("read backup"), old);

    // Old entries are not translated.
    let (code, d) = env.check(&env.work, "old-tool run");
    assert_eq!(code, 10, "{d}");
    assert_eq!(d["reason"], "approval_required", "{d}");
}

#[test]
fn newer_version_is_refused_and_left_untouched() {
    let env = Env::new();
    std::fs::create_dir_all(env.config_dir()).expect("mkdir config");
    let newer = br#"{"version": 3, "audiences": {"personal": {"shell_execute": [{"verb": "future-tool run"}]}}, "x": 1}"#;
    std::fs::write(env.store(), newer).expect("write v3 file");
    let modified = std::fs::metadata(env.store())
        .and_then(|m| m.modified())
        .expect("mtime");
    let work = env.work_str();

    let attempts: Vec<Vec<&str>> = vec![
        vec![
            "check",
            "--json",
            "--session",
            "s1",
            "--cwd",
            &work,
            "--",
            "future-tool run",
        ],
        env.decide_args(&work, "other-tool run"),
        vec!["approvals", "trust-verb", "other-tool run"],
        vec!["approvals", "list"],
    ];
    for args in &attempts {
        let out = env.run(args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", describe(&out));
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        assert!(
            all.contains("written by a newer program"),
            "{args:?}: the message must say the file was written by a newer program; {}",
            describe(&out)
        );
        assert_eq!(
            std::fs::read(env.store()).expect("read"),
            newer,
            "{args:?} changed the file"
        );
    }
    assert_eq!(
        std::fs::metadata(env.store())
            .and_then(|m| m.modified())
            .expect("mtime"),
        modified,
        "the file was rewritten"
    );
    let leftovers: BTreeSet<String> = std::fs::read_dir(env.config_dir())
        .expect("read config dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".invalid") || n.ends_with(".v1.bak") || n.ends_with(".tmp"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "quarantined a newer file: {leftovers:?}"
    );
}
