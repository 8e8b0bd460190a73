//! Tests of the grant file: format, matching, quarantine, writers, cache.

use std::fs;

use serde_json::Value;
use shellgate_policy::fs::OsFs;
use shellgate_policy::model::Audience;

use super::format::*;
use super::write::*;
use super::*;

fn file_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("config").join("tool-approvals.json")
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn one(verb: &str, dir: Option<&str>) -> Vec<(String, Option<String>)> {
    vec![(verb.to_string(), dir.map(str::to_string))]
}

const NETCLAW: &str = r#"// written by netclaw
{
  "version": 2, // schema
  "owner": {"name": "u", "tags": ["a", "b",],},
  "audiences": {
    "personal": {
      "shell_execute": [
        { "verb": "git remote", "directory": "/home/u/repos/foo/", "createdAt": "2026-05-01T12:00:00+00:00", "note": "kept" },
        /* global grant */
        { "verb": "freshdesk", "directory": null, "createdAt": "2026-05-01T12:00:00+00:00" },
        { "verb": "echo", "directory": "   " },
        { "verb": "url", "directory": "http://x//y" },
      ],
    },
    "family": { "x": 1 },
  },
}
"#;

#[test]
fn netclaw_file_is_read_matched_and_written_back() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    write(&path, NETCLAW);
    let (store, q) = Store::load(&path).unwrap();
    assert!(q.is_none());
    assert_eq!(store.len(), 4);
    let find = |verb: &str, dir: Option<&str>| {
        store.find(
            Audience::Personal,
            "shell_execute",
            verb,
            dir,
            "/home/u",
            Os::Linux,
            &OsFs,
        )
    };
    let g = find("git remote", Some("/home/u/repos/foo/sub")).unwrap();
    assert_eq!(g.directory.as_deref(), Some("/home/u/repos/foo"));
    assert_eq!(g.created_at.as_deref(), Some("2026-05-01T12:00:00+00:00"));
    assert!(find("git remote", Some("/home/u/repos/foobar")).is_none());
    assert!(find("git remote", None).is_none());
    assert!(find("git", Some("/home/u/repos/foo")).is_none());
    assert_eq!(find("freshdesk", None).unwrap().directory, None);
    assert!(find("freshdesk", Some("/anywhere")).is_some());
    assert!(
        find("echo", Some("/x")).is_some(),
        "blank directory = anywhere"
    );
    assert!(
        find("url", Some("/y")).is_none(),
        "relative directory never matches"
    );
    assert!(store
        .find(
            Audience::Team,
            "shell_execute",
            "freshdesk",
            None,
            "/home/u",
            Os::Linux,
            &OsFs,
        )
        .is_none());
    assert!(store.audiences_json().get("family").is_some());

    let report = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one(" ls ", None),
        Os::Linux,
    )
    .unwrap();
    assert_eq!(report.added.len(), 1);
    assert_eq!(report.added[0].verb, "ls");
    let created = report.added[0].created_at.clone().unwrap();
    let text = fs::read_to_string(&path).unwrap();
    let expected = format!(
        r#"{{
  "version": 2,
  "owner": {{
    "name": "u",
    "tags": [
      "a",
      "b"
    ]
  }},
  "audiences": {{
    "personal": {{
      "shell_execute": [
        {{
          "verb": "git remote",
          "directory": "/home/u/repos/foo",
          "createdAt": "2026-05-01T12:00:00+00:00",
          "note": "kept"
        }},
        {{
          "verb": "freshdesk",
          "createdAt": "2026-05-01T12:00:00+00:00"
        }},
        {{
          "verb": "echo"
        }},
        {{
          "verb": "url",
          "directory": "http://x//y"
        }},
        {{
          "verb": "ls",
          "createdAt": "{created}"
        }}
      ]
    }},
    "family": {{
      "x": 1
    }}
  }}
}}
"#
    );
    assert_eq!(text, expected);
    // createdAt: UTC, seconds, +00:00.
    assert_eq!(created.len(), "2026-05-01T12:00:00+00:00".len());
    assert!(created.ends_with("+00:00") && created.as_bytes()[10] == b'T');
    // The rewritten file reads back the same.
    let (again, _) = Store::load(&path).unwrap();
    assert_eq!(again.len(), 5);
    assert_eq!(again.groups()[0].2.last().unwrap().label(), "ls anywhere");
}

#[test]
fn new_file_shape_and_directory_normalization() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let entries = vec![
        ("git push".to_string(), Some(" /home/u/p/ ".to_string())),
        ("make".to_string(), Some("".to_string())),
        ("dir".to_string(), Some("/".to_string())),
    ];
    add(&path, Audience::Team, "shell_execute", &entries, Os::Linux).unwrap();
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    let list = &v["audiences"]["team"]["shell_execute"];
    assert_eq!(v["version"], 2);
    assert_eq!(list[0]["directory"], "/home/u/p");
    assert!(list[1].get("directory").is_none());
    assert_eq!(list[2]["directory"], "/");
    assert!(fs::read_to_string(&path)
        .unwrap()
        .starts_with("{\n  \"version\": 2,\n  \"audiences\""));
    assert!(!suffixed(&path, ".tmp").exists());
}

#[test]
fn jsonc_preprocessor_respects_strings() {
    let src =
        r#"{"a": "x // not a comment", "b": "/* nor this */", "c": "q\"//,]", "d": [1, 2,],}"#;
    let clean = strip_comments_and_trailing_commas(src).unwrap();
    let v: Value = serde_json::from_str(&clean).unwrap();
    assert_eq!(v["a"], "x // not a comment");
    assert_eq!(v["b"], "/* nor this */");
    assert_eq!(v["c"], "q\"//,]");
    assert_eq!(v["d"], serde_json::json!([1, 2]));
    for bad in ["[,]", "[1,,]", "{,}", "[1 /* open", "1/*x*/2"] {
        let ok = strip_comments_and_trailing_commas(bad)
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            .is_some();
        assert!(!ok, "{bad} must stay invalid");
    }
}

#[test]
fn pre_v2_shapes_go_to_v1_bak() {
    for text in [
        "[1, 2]",
        r#"{"approvals": []}"#,
        r#"{"version": "2", "audiences": {}}"#,
        r#"{"version": 2.5, "audiences": {}}"#,
        r#"{"version": 1, "audiences": {}}"#,
    ] {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(&path, "old backup");
        let bak = suffixed(&path, ".v1.bak");
        fs::write(&bak, "older").unwrap();
        write(&path, text);
        let (store, q) = Store::load(&path).unwrap();
        assert!(store.is_empty());
        assert_eq!(q, Some(Quarantine::V1Backup(bak.clone())), "{text}");
        assert!(!path.exists());
        assert_eq!(fs::read_to_string(&bak).unwrap(), text);
        let notes = quarantine_notes(&path);
        assert_eq!(
                notes,
                vec![format!(
                    "Note: Your previous approvals were quarantined to '{}' during the v2 schema upgrade.",
                    bak.display()
                )]
            );
        assert_eq!(q.unwrap().note(), notes[0]);
    }
}

#[test]
fn malformed_files_go_to_invalid() {
    for text in [
        "{ not json",
        "",
        r#"{"version": 2, "audiences": []}"#,
        r#"{"version": 2, "audiences": {"personal": []}}"#,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": {}}}}"#,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": ["ls"]}}}"#,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": [{"directory": "/x"}]}}}"#,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": [{"verb": "  "}]}}}"#,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": [{"verb": 3}]}}}"#,
        r#"{"version": 2, "audiences": {"team": {"t": [{"verb": "a", "directory": 1}]}}}"#,
        r#"{"version": 2, "audiences": {"team": {"t": [{"verb": "a", "createdAt": 5}]}}}"#,
    ] {
        let t = tempfile::tempdir().unwrap();
        let path = file_in(&t);
        write(&path, text);
        let (store, q) = Store::load(&path).unwrap();
        let invalid = suffixed(&path, ".invalid");
        assert!(store.is_empty());
        assert_eq!(q, Some(Quarantine::Invalid(invalid.clone())), "{text}");
        assert_eq!(fs::read_to_string(&invalid).unwrap(), text);
        assert_eq!(
            quarantine_notes(&path),
            vec![format!(
                "Warning: A malformed approvals file was quarantined to '{}'.",
                invalid.display()
            )]
        );
    }
    // A writer quarantines too, then writes a fresh file.
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    write(&path, "garbage");
    let report = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("ls", None),
        Os::Linux,
    )
    .unwrap();
    assert!(matches!(report.quarantined, Some(Quarantine::Invalid(_))));
    assert_eq!(Store::load(&path).unwrap().0.len(), 1);
    // A missing file: empty, nothing written, no notes.
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let (store, q) = Store::load(&path).unwrap();
    assert!(store.is_empty() && q.is_none() && !path.exists());
    assert!(quarantine_notes(&path).is_empty());
    // A v2 file without audiences is an empty store.
    write(&path, r#"{"version": 2}"#);
    assert!(Store::load(&path).unwrap().0.is_empty());
    assert!(path.exists());
}

#[cfg(unix)]
#[test]
fn failed_quarantine_is_an_error_naming_the_file() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    write(&path, "garbage");
    // A directory in the way of the target makes the rename fail.
    fs::create_dir(suffixed(&path, ".invalid")).unwrap();
    fs::write(suffixed(&path, ".invalid").join("x"), "x").unwrap();
    let err = Store::load(&path).unwrap_err();
    assert!(matches!(err, StoreError::Quarantine { .. }));
    assert!(err.to_string().contains("tool-approvals.json"), "{err}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "garbage");
}

#[test]
fn newer_version_is_refused_and_untouched() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let text = r#"{"version": 3, "audiences": "whatever"}"#;
    write(&path, text);
    let err = Store::load(&path).unwrap_err();
    assert!(
        err.to_string().contains("written by a newer program"),
        "{err}"
    );
    assert!(err.to_string().contains("tool-approvals.json"), "{err}");
    let err = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("ls", None),
        Os::Linux,
    )
    .unwrap_err();
    assert!(matches!(err, StoreError::TooNew { version: 3, .. }));
    assert!(remove(&path, Audience::Personal, "shell_execute", |_| true).is_err());
    assert!(StoreCache::new(&path).get().is_err());
    assert_eq!(fs::read_to_string(&path).unwrap(), text);
    assert!(quarantine_notes(&path).is_empty());
}

#[test]
fn containment_is_boundary_safe() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("cat", Some("/home/u")),
        Os::Linux,
    )
    .unwrap();
    let (s, _) = Store::load(&path).unwrap();
    let f = |d: &str| {
        s.find(
            Audience::Personal,
            "shell_execute",
            "cat",
            Some(d),
            "/home/u",
            Os::Linux,
            &OsFs,
        )
    };
    assert!(f("/home/u").is_some());
    assert!(f("/home/u/x/y").is_some());
    assert!(f("/home/usersecret").is_none());
    assert!(f("/home").is_none());
    assert!(f("/home/u/../usersecret").is_none());
    assert!(s
        .find(
            Audience::Personal,
            "shell_execute",
            "Cat",
            Some("/home/u"),
            "",
            Os::Linux,
            &OsFs,
        )
        .is_none());
}

#[cfg(unix)]
#[test]
fn symlink_segment_breaks_a_folder_grant() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("proj");
    fs::create_dir_all(root.join("real")).unwrap();
    std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
    let root = root.to_str().unwrap().to_string();
    let path = file_in(&t);
    add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("rm", Some(&root)),
        Os::Linux,
    )
    .unwrap();
    let (s, _) = Store::load(&path).unwrap();
    let f = |d: &str| {
        s.find(
            Audience::Personal,
            "shell_execute",
            "rm",
            Some(d),
            "/nonexistent",
            Os::Linux,
            &OsFs,
        )
    };
    assert!(f(&format!("{root}/real")).is_some());
    assert!(f(&format!("{root}/link")).is_none());
    assert!(f(&format!("{root}/link/passwd")).is_none());
}

/// Containment made twice (§15.11): a grant for `{P}/link` with
/// `link -> X` covers what resolves under `X`; a link inside the project
/// that stays inside it no longer breaks a grant for the project; `..`
/// through a link is the kernel's `..`.
#[cfg(unix)]
#[test]
fn grants_are_matched_on_both_sides_of_links() {
    let t = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(t.path()).unwrap();
    let root = base.join("proj");
    fs::create_dir_all(root.join("real/sub")).unwrap();
    fs::create_dir_all(base.join("x/deep")).unwrap();
    std::os::unix::fs::symlink(root.join("real"), root.join("inner")).unwrap();
    std::os::unix::fs::symlink(base.join("x"), root.join("out")).unwrap();
    let root = root.to_str().unwrap().to_string();
    let path = file_in(&t);
    for d in [root.clone(), format!("{root}/out")] {
        add(
            &path,
            Audience::Personal,
            "shell_execute",
            &one(if d == root { "make" } else { "ls" }, Some(&d)),
            Os::Linux,
        )
        .unwrap();
    }
    let (s, _) = Store::load(&path).unwrap();
    let f = |verb: &str, d: &str, os: Os| {
        s.find(
            Audience::Personal,
            "shell_execute",
            verb,
            Some(d),
            "/nonexistent",
            os,
            &OsFs,
        )
        .is_some()
    };
    assert!(f("make", &format!("{root}/inner/sub"), Os::Linux));
    assert!(!f("make", &format!("{root}/out/deep"), Os::Linux));
    assert!(f("ls", &format!("{root}/out/deep"), Os::Linux));
    assert!(!f("ls", &format!("{root}/inner"), Os::Linux));
    // macOS: containment is case-insensitive (§15.2); Linux is not.
    let upper = root.to_uppercase();
    assert!(f("make", &format!("{upper}/REAL"), Os::Macos) || upper.len() != root.len());
    assert!(!f("make", &format!("{upper}/REAL"), Os::Linux));
}

#[test]
fn tilde_directories_expand_with_the_callers_home() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    write(
        &path,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": [
                {"verb": "npm test", "directory": "~/repos/"},
                {"verb": "ls", "directory": "~"},
                {"verb": "cat", "directory": "~other/x"}
            ]}}}"#,
    );
    let (s, _) = Store::load(&path).unwrap();
    let f = |verb: &str, d: &str, home: &str| {
        s.find(
            Audience::Personal,
            "shell_execute",
            verb,
            Some(d),
            home,
            Os::Linux,
            &OsFs,
        )
    };
    let g = f("npm test", "/home/u/repos/app", "/home/u").unwrap();
    assert_eq!(g.directory.as_deref(), Some("~/repos"));
    assert!(f("npm test", "/home/u/repos", "/home/u/").is_some());
    assert!(f("npm test", "/home/u/reposx", "/home/u").is_none());
    assert!(f("npm test", "/home/v/repos", "/home/u").is_none());
    assert!(f("ls", "/home/u/a", "/home/u").is_some());
    assert!(f("ls", "/etc", "/home/u").is_none());
    // Unknown home: never matches (must not become `/repos` or `/`).
    assert!(f("npm test", "/repos", "").is_none());
    assert!(f("ls", "/etc", "").is_none());
    assert!(f("ls", "/etc", "relative").is_none());
    assert!(f("cat", "/home/other/x", "/home/u").is_none());
}

#[test]
fn windows_semantics_are_case_insensitive() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let entries = vec![
        (
            "Get-Item".to_string(),
            Some("C:\\Users\\U\\Proj\\".to_string()),
        ),
        ("dir".to_string(), None),
    ];
    add(
        &path,
        Audience::Personal,
        "shell_execute",
        &entries,
        Os::Windows,
    )
    .unwrap();
    let again = vec![
        (
            "get-item".to_string(),
            Some("c:\\users\\u\\proj".to_string()),
        ),
        ("DIR".to_string(), None),
    ];
    let r = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &again,
        Os::Windows,
    )
    .unwrap();
    assert!(r.added.is_empty());
    assert_eq!(r.already_present.len(), 2);
    let (s, _) = Store::load(&path).unwrap();
    let f = |verb: &str, d: &str, os: Os| {
        s.find(
            Audience::Personal,
            "shell_execute",
            verb,
            Some(d),
            "",
            os,
            &OsFs,
        )
    };
    assert!(f("get-item", "c:\\users\\u\\proj\\src", Os::Windows).is_some());
    assert!(f("GET-ITEM", "C:/Users/U/Proj", Os::Windows).is_some());
    assert!(f("get-item", "C:\\Users\\U\\Project", Os::Windows).is_none());
    assert!(f("get-item", "C:\\Users\\U\\Proj", Os::Linux).is_none());
    assert!(f("Get-Item", "C:\\Users\\U\\Proj\\x", Os::Linux).is_some());
    // On Linux semantics a differently cased grant is a new grant.
    let r = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("DIR", None),
        Os::Linux,
    )
    .unwrap();
    assert_eq!(r.added.len(), 1);
}

#[test]
fn adding_twice_changes_nothing_and_keeps_created_at() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    write(
        &path,
        r#"{"version": 2, "audiences": {"personal": {"shell_execute": [
                {"verb": "git status", "directory": "/home/u/p", "createdAt": "2020-01-01T00:00:00+00:00"}
            ]}}}"#,
    );
    let before = fs::read(&path).unwrap();
    let r = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one(" git status ", Some("/home/u/p/")),
        Os::Linux,
    )
    .unwrap();
    assert!(r.added.is_empty());
    assert_eq!(
        r.already_present[0].created_at.as_deref(),
        Some("2020-01-01T00:00:00+00:00")
    );
    assert_eq!(fs::read(&path).unwrap(), before, "no rewrite");
    // Duplicates within one call are stored once; other directories are new.
    let entries = vec![
        ("make".to_string(), None),
        ("make".to_string(), Some("  ".to_string())),
        ("git status".to_string(), Some("/home/u".to_string())),
    ];
    let r = add(
        &path,
        Audience::Personal,
        "shell_execute",
        &entries,
        Os::Linux,
    )
    .unwrap();
    assert_eq!(r.added.len(), 2);
    assert_eq!(r.already_present.len(), 1);
    assert_eq!(Store::load(&path).unwrap().0.len(), 3);
    assert!(add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("  ", None),
        Os::Linux
    )
    .is_err());
}

#[test]
fn removing_last_entries_removes_empty_sections() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    write(
        &path,
        r#"{"version": 2, "x-extra": true, "audiences": {
                "personal": {"shell_execute": [{"verb": "a"}, {"verb": "b", "directory": "/p/q"}], "file_read": [{"verb": "r"}]},
                "team": {"shell_execute": [{"verb": "a", "createdAt": "2021-01-01T00:00:00+00:00"}]}
            }}"#,
    );
    let none = remove(&path, Audience::Personal, "shell_execute", |g| {
        g.verb == "zzz"
    })
    .unwrap();
    assert!(none.is_empty());
    let removed = remove(&path, Audience::Team, "shell_execute", |g| {
        g.label() == "a anywhere"
    })
    .unwrap();
    assert_eq!(
        removed[0].created_at.as_deref(),
        Some("2021-01-01T00:00:00+00:00")
    );
    let removed = remove(&path, Audience::Personal, "shell_execute", |_| true).unwrap();
    assert_eq!(
        removed.iter().map(Grant::label).collect::<Vec<_>>(),
        ["a anywhere", "b in /p/q"]
    );
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["x-extra"], true);
    assert_eq!(
        v["audiences"],
        serde_json::json!({"personal": {"file_read": [{"verb": "r"}]}})
    );
    assert_eq!(remove_all_for_tool(&path, "file_read").unwrap(), 1);
    let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v["audiences"], serde_json::json!({}));
    assert_eq!(remove_all_for_tool(&path, "file_read").unwrap(), 0);
}

#[test]
fn groups_are_ordered_by_audience_then_tool() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    add(
        &path,
        Audience::Public,
        "shell_execute",
        &one("a", None),
        Os::Linux,
    )
    .unwrap();
    add(
        &path,
        Audience::Personal,
        "zeta",
        &one("b", None),
        Os::Linux,
    )
    .unwrap();
    add(
        &path,
        Audience::Personal,
        "alpha",
        &one("c", Some("/x/y")),
        Os::Linux,
    )
    .unwrap();
    add(
        &path,
        Audience::Team,
        "shell_execute",
        &one("d", None),
        Os::Linux,
    )
    .unwrap();
    let (s, _) = Store::load(&path).unwrap();
    let keys: Vec<(Audience, String)> = s.groups().into_iter().map(|(a, t, _)| (a, t)).collect();
    assert_eq!(
        keys,
        vec![
            (Audience::Personal, "alpha".to_string()),
            (Audience::Personal, "zeta".to_string()),
            (Audience::Team, "shell_execute".to_string()),
            (Audience::Public, "shell_execute".to_string()),
        ]
    );
    let audiences = s.audiences_json().as_object().unwrap();
    assert_eq!(
        audiences.keys().collect::<Vec<_>>(),
        ["public", "personal", "team"]
    );
}

#[test]
fn index_ignores_other_verbs() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let mut list = Vec::new();
    for i in 0..20_000 {
        list.push(serde_json::json!({"verb": format!("verb{i}"), "directory": format!("/d/{i}")}));
    }
    list.push(serde_json::json!({"verb": "target", "directory": "/home/u/p"}));
    let doc = serde_json::json!({"version": 2, "audiences": {"personal": {"shell_execute": list}}});
    write(&path, &doc.to_string());
    let (s, _) = Store::load(&path).unwrap();
    assert_eq!(s.len(), 20_001);
    let hit = s.find(
        Audience::Personal,
        "shell_execute",
        "target",
        Some("/home/u/p/x"),
        "",
        Os::Linux,
        &OsFs,
    );
    assert_eq!(hit.unwrap().directory.as_deref(), Some("/home/u/p"));
    assert!(s
        .find(
            Audience::Personal,
            "shell_execute",
            "verb7",
            Some("/d/7"),
            "",
            Os::Linux,
            &OsFs,
        )
        .is_some());
    assert!(s
        .find(
            Audience::Personal,
            "shell_execute",
            "verb7",
            Some("/d/8"),
            "",
            Os::Linux,
            &OsFs,
        )
        .is_none());
}

#[test]
fn cache_sees_edits() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let mut cache = StoreCache::new(&path);
    assert!(cache.get().unwrap().is_empty());
    add(
        &path,
        Audience::Personal,
        "shell_execute",
        &one("ls", None),
        Os::Linux,
    )
    .unwrap();
    assert_eq!(cache.get().unwrap().len(), 1);
    assert_eq!(cache.get().unwrap().len(), 1);
    // An in-place edit by hand (same inode).
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("\"ls\"", "\"lsx\"");
    fs::write(&path, text).unwrap();
    let s = cache.get().unwrap();
    assert!(s
        .find(
            Audience::Personal,
            "shell_execute",
            "lsx",
            None,
            "",
            Os::Linux,
            &OsFs,
        )
        .is_some());
    fs::remove_file(&path).unwrap();
    assert!(cache.get().unwrap().is_empty());
}

#[test]
fn concurrent_writers_lose_no_update() {
    let t = tempfile::tempdir().unwrap();
    let path = file_in(&t);
    let threads: Vec<_> = (0..8)
        .map(|n| {
            let path = path.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    let dir = format!("/w/{n}/{i}");
                    add(
                        &path,
                        Audience::Personal,
                        "shell_execute",
                        &one(&format!("v{n}"), Some(&dir)),
                        Os::Linux,
                    )
                    .unwrap();
                    // Readers never see a partial file.
                    Store::load(&path).unwrap();
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    let (s, q) = Store::load(&path).unwrap();
    assert!(q.is_none());
    assert_eq!(s.len(), 400);
    for n in 0..8 {
        for i in 0..50 {
            let dir = format!("/w/{n}/{i}");
            assert!(s
                .find(
                    Audience::Personal,
                    "shell_execute",
                    &format!("v{n}"),
                    Some(&dir),
                    "",
                    Os::Linux,
                    &OsFs,
                )
                .is_some());
        }
    }
}
