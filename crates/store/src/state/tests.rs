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
        .conn
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
    db.conn.pragma_update(None, "user_version", 99).unwrap();
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
    db.conn
            .execute(
                "INSERT INTO sessions (id, audience, channel, created_at) VALUES ('x', 'root', 'telepathy', 't')",
                [],
            )
            .unwrap();
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
    db.conn
        .execute_batch(
            "INSERT INTO sessions (id, audience, channel, parent, created_at) VALUES
                 ('a', 'personal', 'interactive', 'b', 't'),
                 ('b', 'personal', 'interactive', 'a', 't'),
                 ('self', 'personal', 'interactive', 'self', 't');",
        )
        .unwrap();
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
        .conn
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
        .conn
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
    assert!(db.conn.execute("DELETE FROM decisions", []).is_err());
    assert!(db
        .conn
        .execute("UPDATE decisions SET decision = 'deny'", [])
        .is_err());
}

#[test]
fn damaged_json_in_log_is_returned_as_text() {
    let (_dir, _path, db) = temp_db();
    db.conn
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

/// Issue 14: connections that each log one decision and close (a hook
/// call each) keep the WAL bounded, and nothing logged is lost.
#[test]
fn short_lived_connections_keep_the_wal_small() {
    let (_dir, path, db) = temp_db();
    drop(db);
    let mut wal = path.clone().into_os_string();
    wal.push("-wal");
    let mut largest = 0;
    for i in 0..400 {
        let db = StateDb::open(&path).unwrap();
        db.log_decision(&DecisionRecord {
            time: String::new(),
            session: Some("s".into()),
            tool: "shell_execute".into(),
            command: format!("git status {i}"),
            cwd: Some("/home/u/proj".into()),
            decision: "allow".into(),
            reason: "safe_verb_in_safe_space".into(),
            candidates: json!([{"verb": "git status", "status": "safe", "grant": null}]),
            matched_grant: None,
            source: "hook:claude-code".into(),
        })
        .unwrap();
        drop(db);
        largest = largest.max(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0));
    }
    // Without the checkpoint the WAL reached about 3.5 MB here.
    assert!(largest <= 320 * 1024, "the WAL grew to {largest} bytes");
    let db = StateDb::open(&path).unwrap();
    let all = db.recent_decisions(1000).unwrap();
    assert_eq!(all.len(), 400);
    assert_eq!(all[399].command, "git status 399");
}
