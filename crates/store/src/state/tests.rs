//! Tests of the state database.

use super::*;
use serde_json::json;

fn temp_db() -> (tempfile::TempDir, PathBuf, StateDb) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("shellgate.db");
    let db = StateDb::open(&path).unwrap();
    (dir, path, db)
}

fn session(id: &str, parent: Option<&str>) -> SessionRecord {
    SessionRecord {
        id: id.to_string(),
        audience: Audience::Personal,
        channel: Channel::Interactive,
        parent: parent.map(str::to_string),
        project_dir: None,
        created_at: String::new(),
        ended_at: None,
    }
}

/// A session record written behind the API's back.
fn write_record(db: &StateDb, id: &str, json: &str) {
    let dir = db.files.sessions_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{id}.json")), json).unwrap();
}

fn g(verb: &str, dir: Option<&str>) -> (String, Option<String>) {
    (verb.to_string(), dir.map(str::to_string))
}

fn sg(verb: &str, dir: Option<&str>) -> SessionGrant {
    SessionGrant {
        verb: verb.to_string(),
        directory: dir.map(str::to_string),
    }
}

#[test]
fn schema_created_and_reopened() {
    let (_dir, path, db) = temp_db();
    assert!(path.is_file());
    assert_eq!(db.user_version().unwrap(), SCHEMA_VERSION);
    let mode: String = db
        .conn()
        .unwrap()
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(mode.to_lowercase(), "wal");
    db.create_session(&session("s1", None)).unwrap();
    drop(db);
    let db = StateDb::open(&path).unwrap();
    assert_eq!(db.user_version().unwrap(), SCHEMA_VERSION);
    assert!(db.session("s1").unwrap().is_some());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "db readable by others: {mode:o}");
    }
}

#[test]
fn newer_schema_is_refused_and_names_the_file() {
    let (_dir, path, db) = temp_db();
    db.conn()
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    drop(db);
    let err = StateDb::open(&path).unwrap_err();
    assert!(
        matches!(err, StateError::NewerSchema { found: 99, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains(&path.display().to_string()));
}

#[test]
fn garbage_file_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shellgate.db");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let err = StateDb::open(&path).unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn session_create_get_duplicate() {
    let (_dir, _path, db) = temp_db();
    assert!(db.session("s1").unwrap().is_none());
    let mut rec = session("s1", None);
    rec.audience = Audience::Team;
    rec.channel = Channel::Webhook;
    rec.project_dir = Some("/home/u/p".into());
    db.create_session(&rec).unwrap();
    let got = db.session("s1").unwrap().unwrap();
    assert_eq!(got.id, "s1");
    assert_eq!(got.audience, Audience::Team);
    assert_eq!(got.channel, Channel::Webhook);
    assert_eq!(got.project_dir.as_deref(), Some("/home/u/p"));
    assert!(got.created_at.ends_with('Z'), "{}", got.created_at);
    assert!(got.ended_at.is_none());

    let err = db.create_session(&session("s1", None)).unwrap_err();
    assert!(
        matches!(err, StateError::AlreadyExists { ref id, .. } if id == "s1"),
        "{err:?}"
    );
    // The first record is untouched.
    assert_eq!(db.session("s1").unwrap().unwrap().audience, Audience::Team);

    assert!(matches!(
        db.create_session(&session("../x", None)),
        Err(StateError::InvalidSessionId { .. })
    ));
    assert!(matches!(
        db.create_session(&session("ok", Some("bad/parent"))),
        Err(StateError::InvalidSessionId { .. })
    ));

    assert!(db.set_project_dir("s1", "/home/u/q").unwrap());
    assert_eq!(
        db.session("s1").unwrap().unwrap().project_dir.as_deref(),
        Some("/home/u/q")
    );
    assert!(!db.set_project_dir("nope", "/x").unwrap());
}

#[test]
fn unknown_stored_audience_reads_public() {
    let (_dir, _path, db) = temp_db();
    write_record(
        &db,
        "x",
        r#"{"id":"x","audience":"root","channel":"telepathy","created_at":"t"}"#,
    );
    let got = db.session("x").unwrap().unwrap();
    assert_eq!(got.audience, Audience::Public);
    assert!(!got.channel.is_interactive());
}

#[test]
fn parent_grants_visible_to_child_not_vice_versa() {
    let (_dir, _path, db) = temp_db();
    db.create_session(&session("gp", None)).unwrap();
    db.create_session(&session("p", Some("gp"))).unwrap();
    db.create_session(&session("c", Some("p"))).unwrap();
    let a = Audience::Personal;
    db.add_session_grants("gp", a, "shell_execute", &[g("make", None)])
        .unwrap();
    db.add_session_grants("p", a, "shell_execute", &[g("git push", Some("/home/u/r"))])
        .unwrap();
    db.add_session_grants("c", a, "shell_execute", &[g("npm test", Some("/home/u/r"))])
        .unwrap();

    assert_eq!(
        db.session_grants("c", a, "shell_execute").unwrap(),
        vec![
            sg("npm test", Some("/home/u/r")),
            sg("git push", Some("/home/u/r")),
            sg("make", None)
        ]
    );
    assert_eq!(
        db.session_grants("p", a, "shell_execute").unwrap(),
        vec![sg("git push", Some("/home/u/r")), sg("make", None)]
    );
    assert_eq!(
        db.session_grants("gp", a, "shell_execute").unwrap(),
        vec![sg("make", None)]
    );
    // Other audience / tool / session see nothing.
    assert!(db
        .session_grants("c", Audience::Team, "shell_execute")
        .unwrap()
        .is_empty());
    assert!(db.session_grants("c", a, "file_read").unwrap().is_empty());
    assert!(db
        .session_grants("other", a, "shell_execute")
        .unwrap()
        .is_empty());
}

#[test]
fn parent_chain_is_cycle_safe_and_depth_limited() {
    let (_dir, _path, db) = temp_db();
    let a = Audience::Personal;
    // A cycle a -> b -> a written behind the API's back.
    for (id, parent) in [("a", "b"), ("b", "a"), ("self", "self")] {
        write_record(
            &db,
            id,
            &format!(r#"{{"id":"{id}","audience":"personal","channel":"interactive","parent":"{parent}","created_at":"t"}}"#),
        );
    }
    db.add_session_grants("a", a, "t", &[g("va", None)])
        .unwrap();
    db.add_session_grants("b", a, "t", &[g("vb", None)])
        .unwrap();
    db.add_session_grants("self", a, "t", &[g("vs", None)])
        .unwrap();
    assert_eq!(
        db.session_grants("a", a, "t").unwrap(),
        vec![sg("va", None), sg("vb", None)]
    );
    assert_eq!(
        db.session_grants("self", a, "t").unwrap(),
        vec![sg("vs", None)]
    );

    // A chain of 20: s0 <- s1 <- ... <- s19; s19 sees itself + 16 ancestors.
    db.create_session(&session("s0", None)).unwrap();
    for i in 1..20 {
        db.create_session(&session(&format!("s{i}"), Some(&format!("s{}", i - 1))))
            .unwrap();
    }
    for i in 0..20 {
        db.add_session_grants(&format!("s{i}"), a, "t", &[g(&format!("v{i}"), None)])
            .unwrap();
    }
    let got = db.session_grants("s19", a, "t").unwrap();
    assert_eq!(got.len(), 1 + MAX_PARENT_DEPTH);
    assert_eq!(got[0], sg("v19", None));
    assert_eq!(got[MAX_PARENT_DEPTH], sg("v3", None));
}

#[test]
fn duplicate_grants_do_not_accumulate() {
    let (_dir, _path, db) = temp_db();
    let a = Audience::Personal;
    let grants = [
        g("git push", None),
        g("git push", None),
        g("git push", Some("/home/u/r")),
        g("git push", Some("/home/u/r/")),
        g("git push", Some("  ")),
        g("  ", None),
    ];
    assert_eq!(
        db.add_session_grants("s", a, "shell_execute", &grants)
            .unwrap(),
        2
    );
    assert_eq!(
        db.add_session_grants("s", a, "shell_execute", &grants)
            .unwrap(),
        0
    );
    assert_eq!(
        db.add_session_grants("s", a, "shell_execute", &[g(" git push ", None)])
            .unwrap(),
        0
    );
    let count: i64 = db
        .conn()
        .unwrap()
        .query_row("SELECT COUNT(*) FROM session_grants", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 2);
    assert_eq!(
        db.session_grants("s", a, "shell_execute").unwrap(),
        vec![sg("git push", None), sg("git push", Some("/home/u/r"))]
    );
}

#[test]
fn once_approval_consumed_exactly_once() {
    let (_dir, _path, db) = temp_db();
    let (t, cmd) = ("shell_execute", "rm -rf ./build && make");
    db.add_once("s", t, cmd, Some("/home/u/p")).unwrap();
    assert!(!db.take_once("s", t, cmd, Some("/home/u/other")).unwrap());
    assert!(!db.take_once("s", t, cmd, None).unwrap());
    assert!(!db
        .take_once("s", t, "rm -rf ./build &&  make", Some("/home/u/p"))
        .unwrap());
    assert!(!db.take_once("s2", t, cmd, Some("/home/u/p")).unwrap());
    assert!(!db
        .take_once("s", "file_read", cmd, Some("/home/u/p"))
        .unwrap());
    assert!(db.take_once("s", t, cmd, Some("/home/u/p")).unwrap());
    assert!(!db.take_once("s", t, cmd, Some("/home/u/p")).unwrap());

    // A None cwd matches only a None cwd.
    db.add_once("s", t, cmd, None).unwrap();
    assert!(!db.take_once("s", t, cmd, Some("")).unwrap());
    assert!(db.take_once("s", t, cmd, None).unwrap());
    assert!(!db.take_once("s", t, cmd, None).unwrap());

    // Two approvals allow two runs.
    db.add_once("s", t, cmd, None).unwrap();
    db.add_once("s", t, cmd, None).unwrap();
    assert!(db.take_once("s", t, cmd, None).unwrap());
    assert!(db.take_once("s", t, cmd, None).unwrap());
    assert!(!db.take_once("s", t, cmd, None).unwrap());
}

#[test]
fn once_approval_expires_after_600_seconds() {
    let (_dir, _path, db) = temp_db();
    let t0 = 1_800_000_000;
    db.add_once_at("s", "sh", "ls", None, t0).unwrap();
    assert!(db.take_once_at("s", "sh", "ls", None, t0 + 600).unwrap());

    db.add_once_at("s", "sh", "ls", None, t0).unwrap();
    db.add_once_at("s", "sh", "other", None, t0).unwrap();
    assert!(!db.take_once_at("s", "sh", "ls", None, t0 + 601).unwrap());
    // Expired rows were purged, not merely skipped.
    let count: i64 = db
        .conn()
        .unwrap()
        .query_row("SELECT COUNT(*) FROM once_approvals", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 0);
    assert!(!db.take_once_at("s", "sh", "ls", None, t0).unwrap());

    // Recorded far in the future (clock went backwards): not honored.
    db.add_once_at("s", "sh", "ls", None, t0 + 3600).unwrap();
    assert!(!db.take_once_at("s", "sh", "ls", None, t0).unwrap());
}

#[test]
fn end_session_removes_grants() {
    let (_dir, _path, db) = temp_db();
    let a = Audience::Personal;
    db.create_session(&session("p", None)).unwrap();
    db.create_session(&session("c", Some("p"))).unwrap();
    db.add_session_grants("p", a, "sh", &[g("make", None)])
        .unwrap();
    db.add_session_grants("c", a, "sh", &[g("ls", None)])
        .unwrap();
    db.add_once("p", "sh", "x", None).unwrap();

    assert!(db.end_session("p").unwrap());
    let rec = db.session("p").unwrap().unwrap();
    let ended = rec.ended_at.clone().unwrap();
    assert!(db.session_grants("p", a, "sh").unwrap().is_empty());
    assert_eq!(
        db.session_grants("c", a, "sh").unwrap(),
        vec![sg("ls", None)]
    );
    assert!(!db.take_once("p", "sh", "x", None).unwrap());
    // Ended sessions take no new grants.
    assert!(matches!(
        db.add_session_grants("p", a, "sh", &[g("make", None)]),
        Err(StateError::SessionEnded { .. })
    ));
    // Ending again keeps the first end time.
    assert!(db.end_session("p").unwrap());
    assert_eq!(db.session("p").unwrap().unwrap().ended_at, Some(ended));

    // Implicit session: not stored, but its grants still go.
    db.add_session_grants("implicit", a, "sh", &[g("make", None)])
        .unwrap();
    assert!(!db.end_session("implicit").unwrap());
    assert!(db.session_grants("implicit", a, "sh").unwrap().is_empty());
}

#[test]
fn decision_log_round_trip() {
    let (_dir, path, db) = temp_db();
    assert!(db.recent_decisions(10).unwrap().is_empty());
    let rec = |i: usize| DecisionRecord {
        time: String::new(),
        session: Some("s".into()),
        tool: "shell_execute".into(),
        command: format!("echo {i} 'quoted' \"x\" \u{e9}"),
        cwd: if i.is_multiple_of(2) {
            Some("/home/u".into())
        } else {
            None
        },
        decision: "allow".into(),
        reason: "granted".into(),
        candidates: json!([{"verb": "echo", "directory": null, "status": "safe", "grant": null}]),
        matched_grant: if i.is_multiple_of(2) {
            Some(json!({"verb": "echo"}))
        } else {
            None
        },
        source: "exec".into(),
    };
    for i in 0..5 {
        db.log_decision(&rec(i)).unwrap();
    }
    db.log_decisions(&[rec(5), rec(6)]).unwrap();
    let got = db.recent_decisions(3).unwrap();
    assert_eq!(got.len(), 3);
    for (k, r) in got.iter().enumerate() {
        let mut want = rec(4 + k);
        want.time = r.time.clone();
        assert_eq!(r, &want);
        assert!(r.time.ends_with('Z'));
    }
    let mut explicit = rec(7);
    explicit.time = "2026-05-01T12:00:00Z".into();
    db.log_decision(&explicit).unwrap();
    drop(db);
    let db = StateDb::open(&path).unwrap();
    let all = db.recent_decisions(100).unwrap();
    assert_eq!(all.len(), 8);
    assert_eq!(all[7], explicit);
    assert!(db.recent_decisions(0).unwrap().is_empty());
    // Append-only.
    assert!(db.conn().unwrap().execute("DELETE FROM decisions", []).is_err());
    assert!(db
        .conn()
        .unwrap()
        .execute("UPDATE decisions SET decision = 'deny'", [])
        .is_err());
}

#[test]
fn damaged_json_in_log_is_returned_as_text() {
    let (_dir, _path, db) = temp_db();
    db.conn()
        .unwrap()
            .execute(
                "INSERT INTO decisions (time, tool, command, decision, reason, candidates, matched_grant, source)
                 VALUES ('t', 'sh', 'ls', 'allow', 'granted', '{broken', 'nope', 'exec')",
                [],
            )
            .unwrap();
    let got = db.recent_decisions(1).unwrap();
    assert_eq!(got[0].candidates, json!("{broken"));
    assert_eq!(got[0].matched_grant, Some(json!("nope")));
}

#[test]
fn concurrent_writers_with_separate_connections() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("shellgate.db");
    let threads = 4;
    let per = 50;
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let path = path.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                // Everyone opens (and races to create) the schema at once.
                let db = StateDb::open(&path).unwrap();
                let id = format!("t{t}");
                db.create_session(&session(&id, None)).unwrap();
                for i in 0..per {
                    db.add_session_grants(
                        &id,
                        Audience::Personal,
                        "sh",
                        &[g(&format!("v{i}"), None)],
                    )
                    .unwrap();
                    db.add_once(&id, "sh", "cmd", None).unwrap();
                    assert!(db.take_once(&id, "sh", "cmd", None).unwrap());
                    db.log_decision(&DecisionRecord {
                        time: String::new(),
                        session: Some(id.clone()),
                        tool: "sh".into(),
                        command: format!("cmd {i}"),
                        cwd: None,
                        decision: "allow".into(),
                        reason: "approved_once".into(),
                        candidates: json!([]),
                        matched_grant: None,
                        source: "test".into(),
                    })
                    .unwrap();
                }
                db.end_session(&id).unwrap();
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let db = StateDb::open(&path).unwrap();
    assert_eq!(db.recent_decisions(10_000).unwrap().len(), threads * per);
    for t in 0..threads {
        assert!(db
            .session(&format!("t{t}"))
            .unwrap()
            .unwrap()
            .ended_at
            .is_some());
    }
}

#[test]
fn once_is_taken_by_only_one_of_many_racers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shellgate.db");
    StateDb::open(&path)
        .unwrap()
        .add_once("s", "sh", "x", None)
        .unwrap();
    let handles: Vec<_> = (0..16)
        .map(|_| {
            let path = path.clone();
            std::thread::spawn(move || {
                StateDb::open(&path)
                    .unwrap()
                    .take_once("s", "sh", "x", None)
                    .unwrap()
            })
        })
        .collect();
    let wins = handles
        .into_iter()
        .map(|h| h.join().unwrap())
        .filter(|w| *w)
        .count();
    assert_eq!(wins, 1);
}

fn rec(i: usize) -> DecisionRecord {
    DecisionRecord {
        time: String::new(),
        session: Some("s".into()),
        tool: "shell_execute".into(),
        command: format!("echo {i}"),
        cwd: None,
        decision: "allow".into(),
        reason: "granted".into(),
        candidates: json!([]),
        matched_grant: None,
        source: "test".into(),
    }
}

#[test]
fn a_session_without_rows_never_opens_the_database() {
    // What a hook call does on a fresh home: read (and create) the session,
    // look up grants, approvals and failed sandbox runs, log the decision.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("shellgate.db");
    let db = StateDb::lazy(&path);
    assert!(db.session("s1").unwrap().is_none());
    db.create_session(&session("s1", None)).unwrap();
    assert!(db.session("s1").unwrap().is_some());
    let a = Audience::Personal;
    assert!(db.session_grants("s1", a, "sh").unwrap().is_empty());
    assert!(!db.take_once("s1", "sh", "ls", None).unwrap());
    assert!(!db.sandbox_failed("s1", "sh", "ls", None).unwrap());
    db.log_decision(&rec(1)).unwrap();
    assert!(!path.exists(), "the database was created");
    assert!(db.conn.get().is_none(), "the database was opened");
    // Once a row exists, the lookups find it (another process included).
    db.add_session_grants("s1", a, "sh", &[g("make", None)])
        .unwrap();
    let other = StateDb::lazy(&path);
    assert_eq!(
        other.session_grants("s1", a, "sh").unwrap(),
        vec![sg("make", None)]
    );
    // The decision logged before the database existed is in the log.
    let log = other.recent_decisions(10).unwrap();
    assert_eq!(log.len(), 1);
    assert_eq!(log[0].command, "echo 1");
}

#[test]
fn the_audit_file_is_merged_in_order_and_stays_small() {
    let (dir, path, db) = temp_db();
    let audit = dir.path().join("state").join("audit.log");
    let n = 3000;
    for i in 0..n {
        db.log_decision(&rec(i)).unwrap();
    }
    // The writers merged whenever the file passed the threshold.
    let size = std::fs::metadata(&audit).map(|m| m.len()).unwrap_or(0);
    assert!(size < audit::MERGE_BYTES + 4096, "audit.log is {size} bytes");
    let all = StateDb::open(&path).unwrap().recent_decisions(n + 10).unwrap();
    assert_eq!(all.len(), n);
    for (i, r) in all.iter().enumerate() {
        assert_eq!(r.command, format!("echo {i}"));
    }
    assert!(!audit.exists() || std::fs::metadata(&audit).unwrap().len() == 0);
}

#[test]
fn an_interrupted_merge_neither_loses_nor_repeats_a_decision() {
    let (dir, path, db) = temp_db();
    let state = dir.path().join("state");
    db.log_decisions(&[rec(0), rec(1)]).unwrap();
    db.merge_audit().unwrap();
    // A merge that committed but died before deleting its file: the file
    // is back under its name, which the database recorded.
    let name: String = db
        .conn()
        .unwrap()
        .query_row("SELECT name FROM audit_files", [], |r| r.get(0))
        .unwrap();
    std::fs::write(
        state.join(&name),
        "{\"tool\":\"sh\",\"command\":\"echo 0\",\"decision\":\"allow\"}\n",
    )
    .unwrap();
    // A merge that died before committing: its file is taken first, in
    // name order, before the live file.
    db.log_decision(&rec(3)).unwrap();
    std::fs::write(
        state.join("audit.000000000000000000000000000000000000001.0000000001.merging"),
        format!(
            "{}\nnot json at all\n",
            json!({"tool": "shell_execute", "command": "echo 2", "decision": "allow"})
        ),
    )
    .unwrap();
    let got: Vec<(String, String)> = StateDb::open(&path)
        .unwrap()
        .recent_decisions(100)
        .unwrap()
        .into_iter()
        .map(|r| (r.command, r.reason))
        .collect();
    let cmds: Vec<&str> = got.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        cmds,
        vec!["echo 0", "echo 1", "echo 2", "not json at all", "echo 3"]
    );
    assert_eq!(got[3].1, "damaged_audit_record");
    let left: Vec<_> = std::fs::read_dir(&state)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".merging"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn appenders_and_mergers_racing_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state").join("shellgate.db");
    let threads = 4;
    let per = 300;
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let db = StateDb::lazy(&path);
                for i in 0..per {
                    let mut r = rec(i);
                    r.session = Some(format!("t{t}"));
                    db.log_decision(&r).unwrap();
                    if i % 50 == 0 {
                        db.merge_audit().unwrap();
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let all = StateDb::open(&path).unwrap().recent_decisions(100_000).unwrap();
    assert_eq!(all.len(), threads * per);
    for t in 0..threads {
        let mine: Vec<&str> = all
            .iter()
            .filter(|r| r.session.as_deref() == Some(&format!("t{t}")))
            .map(|r| r.command.as_str())
            .collect();
        let want: Vec<String> = (0..per).map(|i| format!("echo {i}")).collect();
        assert_eq!(mine, want, "thread {t}: out of order or lost");
    }
}

#[test]
fn a_version_1_database_is_migrated_to_session_files() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let path = state.join("shellgate.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(schema::SCHEMA_V1).unwrap();
        c.execute_batch(
            "INSERT INTO sessions (id, audience, channel, parent, project_dir, created_at) VALUES
                 ('pub', 'public', 'webhook', NULL, NULL, '2026-01-01T00:00:00Z'),
                 ('kid', 'personal', 'interactive', 'pub', '/home/u/p', '2026-01-01T00:00:00Z'),
                 ('../bad', 'personal', 'interactive', NULL, NULL, 't');
             INSERT INTO session_grants (session, audience, tool, verb, directory, created_at)
                 VALUES ('kid', 'personal', 'sh', 'make', '', 't');
             INSERT INTO once_approvals (session, tool, command, cwd, created_at)
                 VALUES ('implicit', 'sh', 'ls', NULL, 0);
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    // A hook's lookups on the old database find the old records.
    let db = StateDb::lazy(&path);
    let p = db.session("pub").unwrap().unwrap();
    assert_eq!((p.audience, p.channel), (Audience::Public, Channel::Webhook));
    let k = db.session("kid").unwrap().unwrap();
    assert_eq!(k.parent.as_deref(), Some("pub"));
    assert_eq!(k.project_dir.as_deref(), Some("/home/u/p"));
    assert_eq!(
        db.session_grants("kid", Audience::Personal, "sh").unwrap(),
        vec![sg("make", None)]
    );
    assert!(state.join("sessions").join("kid.rows").exists());
    assert!(state.join("sessions").join("implicit.rows").exists());
    assert!(!state.join("sessions").join("pub.rows").exists());
    assert_eq!(db.user_version().unwrap(), SCHEMA_VERSION);
    // The old id that is not a session id stays out of the file system.
    assert_eq!(
        std::fs::read_dir(state.join("sessions")).unwrap().count(),
        4
    );
}
