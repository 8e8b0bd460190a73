//! Every `shellgate approvals` text of SPEC §11, through the real binary.

use std::process::{Command, Output};

struct Env {
    _tmp: tempfile::TempDir,
    home: String,
    gate: String,
}

fn env() -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp
        .path()
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .to_string();
    let home = format!("{root}/home");
    std::fs::create_dir_all(format!("{home}/repos/a")).unwrap();
    Env {
        _tmp: tmp,
        gate: format!("{home}/.shellgate"),
        home,
    }
}

impl Env {
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_shellgate"))
            .env("HOME", &self.home)
            .env("SHELLGATE_HOME", &self.gate)
            .args(args)
            .output()
            .unwrap()
    }

    fn write_store(&self, text: &str) {
        std::fs::create_dir_all(format!("{}/config", self.gate)).unwrap();
        std::fs::write(format!("{}/config/tool-approvals.json", self.gate), text).unwrap();
    }
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

const STORE: &str = r#"{
  "version": 2,
  "audiences": {
    "team": { "shell_execute": [ { "verb": "make build", "directory": "/srv/app" } ] },
    "personal": {
      "shell_execute": [
        { "verb": "npm test", "directory": "/home/u/b" },
        { "verb": "git push", "directory": "/home/u/a" },
        { "verb": "npm test" },
        { "verb": "npm test", "directory": "/home/u/a" },
        { "verb": "deploy in prod", "directory": "/home/u/a" }
      ],
      "file_read": [ { "verb": "file_read" } ]
    }
  }
}"#;

#[test]
fn list_empty_and_grouped() {
    let e = env();
    let o = e.run(&["approvals", "list"]);
    assert_eq!(
        (o.status.code(), out(&o)),
        (Some(0), "No persistent approvals.\n".to_string())
    );
    e.write_store(STORE);
    let o = e.run(&["approvals", "list"]);
    assert_eq!(
        out(&o),
        "personal / file_read\n  file_read anywhere\n\npersonal / shell_execute\n  deploy in prod in /home/u/a\n  git push in /home/u/a\n  npm test anywhere\n  npm test in /home/u/a\n  npm test in /home/u/b\n\nteam / shell_execute\n  make build in /srv/app\n"
    );
    let o = e.run(&["approvals", "list", "--audience", "team"]);
    assert_eq!(out(&o), "team / shell_execute\n  make build in /srv/app\n");
    let o = e.run(&["approvals", "list", "--json", "--tool", "file_read"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        v["audiences"]["personal"]["file_read"][0]["verb"],
        "file_read"
    );
    assert!(v["audiences"]["personal"].get("shell_execute").is_none());
}

#[test]
fn revoke_by_label_parse_and_errors() {
    let e = env();
    e.write_store(STORE);
    // A verb containing " in " is revoked by its exact label.
    let o = e.run(&["approvals", "revoke", "deploy in prod in /home/u/a"]);
    assert_eq!(
        out(&o),
        "Removed 'deploy in prod in /home/u/a' from personal / shell_execute.\n"
    );
    let o = e.run(&[
        "approvals",
        "revoke",
        "npm test anywhere",
        "--audience",
        "personal",
    ]);
    assert_eq!(
        out(&o),
        "Removed 'npm test anywhere' from personal / shell_execute.\n"
    );
    // Parsed form with a trailing separator is normalized.
    let o = e.run(&["approvals", "revoke", "git push in /home/u/a/"]);
    assert_eq!(
        (o.status.code(), out(&o)),
        (
            Some(0),
            "Removed 'git push in /home/u/a' from personal / shell_execute.\n".to_string()
        )
    );
    let o = e.run(&["approvals", "revoke", "git push in /home/u/a"]);
    assert_eq!(
        (o.status.code(), out(&o)),
        (Some(1), "No matching approval found.\n".to_string())
    );
    let o = e.run(&["approvals", "revoke", "just-a-verb"]);
    assert_eq!(o.status.code(), Some(1));
    let t = out(&o);
    assert!(
        t.starts_with("Could not parse revoke pattern 'just-a-verb'.\n"),
        "{t}"
    );
    assert!(
        t.contains("'<verb> in <directory>'") && t.contains("'<verb> anywhere'"),
        "{t}"
    );
    let o = e.run(&["approvals", "revoke", "--tool", "shell_execute", "--all"]);
    assert_eq!(out(&o), "Removed 3 approval(s) for tool 'shell_execute'.\n");
}

#[test]
fn trust_verb_and_allow() {
    let e = env();
    let o = e.run(&["approvals", "trust-verb", "git fetch"]);
    assert_eq!(
        (o.status.code(), out(&o)),
        (
            Some(0),
            "Trusted 'git fetch anywhere' for personal / shell_execute.\n".to_string()
        )
    );
    let o = e.run(&["approvals", "trust-verb", "git fetch"]);
    assert_eq!(
        out(&o),
        "No changes: 'git fetch anywhere' is already trusted for personal / shell_execute.\n"
    );
    let o = e.run(&[
        "approvals",
        "trust-verb",
        "cat",
        "--audience",
        "team",
        "--tool",
        "file_read",
    ]);
    assert_eq!(out(&o), "Trusted 'cat anywhere' for team / file_read.\n");
    for bad in ["a in b", "x anywhere", "-rf"] {
        let o = e.run(&["approvals", "trust-verb", "--", bad]);
        assert_eq!(o.status.code(), Some(1), "{bad}");
    }
    let dir = format!("{}/repos/a", e.home);
    let o = e.run(&["approvals", "allow", "make build", "--dir", &dir]);
    assert_eq!(
        (o.status.code(), out(&o)),
        (Some(0), format!("Saved: make build in {dir}\n"))
    );
    let o = e.run(&["approvals", "allow", "make build", "--dir", "/etc"]);
    assert_eq!(o.status.code(), Some(1));
    // Written in the v2 shape: global grant without a directory key.
    let text = std::fs::read_to_string(format!("{}/config/tool-approvals.json", e.gate)).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let g = &v["audiences"]["personal"]["shell_execute"][0];
    assert_eq!(g["verb"], "git fetch");
    assert!(g.get("directory").is_none());
    assert!(g["createdAt"].as_str().unwrap().ends_with("+00:00"));
}

#[test]
fn quarantine_notes_come_first() {
    let e = env();
    e.write_store("{ this is not json");
    let o = e.run(&["approvals", "list"]);
    let path = format!("{}/config/tool-approvals.json", e.gate);
    assert_eq!(
        out(&o),
        format!("Warning: A malformed approvals file was quarantined to '{path}.invalid'.\nNo persistent approvals.\n")
    );
}
