//! The path layer end to end through `evaluate` (SPEC §15.2, §15.3,
//! §15.5, §15.11, §15.17–§15.20): real scratch trees with real symbolic
//! links, archives, repositories and host settings; each attack next to the
//! ordinary command that must stay allowed.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use shellgate_policy::config::PolicyConfig;
use shellgate_policy::decision::{self, Context, Decision, GrantRef, Lookups, Policy, Request};
use shellgate_policy::fs::OsFs;
use shellgate_policy::{Audience, Channel, Os};
use shellgate_shell::paths::is_within;

/// A scratch home `H` with the gate's home `G`, a project `P` and a place
/// outside `X`.
struct Tree {
    _t: tempfile::TempDir,
    h: String,
    g: String,
    p: String,
    x: String,
}

fn tree() -> Tree {
    let t = tempfile::tempdir().unwrap();
    let r = fs::canonicalize(t.path())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    let h = format!("{r}/home");
    let g = format!("{h}/.shellgate");
    let p = format!("{h}/repos/proj");
    let x = format!("{r}/outside");
    for d in [&h, &g, &p, &x, &format!("{g}/sessions/s1")] {
        fs::create_dir_all(d).unwrap();
    }
    Tree { _t: t, h, g, p, x }
}

impl Tree {
    fn file(&self, path: &str, text: &str) {
        let path = self.sub(path);
        fs::create_dir_all(Path::new(&path).parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    fn dir(&self, path: &str) {
        fs::create_dir_all(self.sub(path)).unwrap();
    }
    fn link(&self, at: &str, target: &str) {
        let at = self.sub(at);
        fs::create_dir_all(Path::new(&at).parent().unwrap()).unwrap();
        symlink(self.sub(target), at).unwrap();
    }
    fn sub(&self, s: &str) -> String {
        s.replace("{H}", &self.h)
            .replace("{G}", &self.g)
            .replace("{P}", &self.p)
            .replace("{X}", &self.x)
    }
    fn ctx(&self, os: Os, channel: Channel, project: Option<&str>) -> Context<'static> {
        Context {
            session: "s1".into(),
            audience: Audience::Personal,
            channel,
            os,
            project_dir: project.map(|p| self.sub(p)),
            session_dir: format!("{}/sessions/s1", self.g),
            home: self.h.clone(),
            gate_home: self.g.clone(),
            fs: &OsFs,
            run_env: shellgate_policy::RunEnv {
                path: Some("/usr/local/bin:/usr/bin:/bin"),
                xdg_config_home: None,
                cdpath: None,
            },
        }
    }
    fn check_with(&self, cmd: &str, ctx: &Context, lookups: &dyn Lookups) -> Decision {
        let pol = Policy::new(PolicyConfig::default(), &[]);
        let req = Request {
            tool: "shell_execute".into(),
            command: cmd.into(),
            working_directory: Some(self.p.clone()),
        };
        decision::evaluate(&pol, &req, ctx, lookups)
    }
    fn check(&self, cmd: &str) -> Decision {
        let ctx = self.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
        self.check_with(cmd, &ctx, &decision::NoLookups)
    }
    fn tool(&self, tool: &str, path: &str, ctx: &Context, lookups: &dyn Lookups) -> Decision {
        let pol = Policy::new(PolicyConfig::default(), &[]);
        let req = Request {
            tool: tool.into(),
            command: path.into(),
            working_directory: None,
        };
        decision::evaluate(&pol, &req, ctx, lookups)
    }
}

/// Grants `(verb, directory)` matched lexically (the store's matcher does
/// its own kernel check; this one leaves it all to the policy's).
struct Grants(Vec<(&'static str, Option<String>)>);

impl Lookups for Grants {
    fn persistent_grant(
        &self,
        _: Audience,
        _: &str,
        verb: &str,
        dir: Option<&str>,
    ) -> Option<GrantRef> {
        self.0
            .iter()
            .find(|(v, d)| {
                *v == verb
                    && match (d, dir) {
                        (None, _) => true,
                        (Some(g), Some(c)) => is_within(c, g),
                        _ => false,
                    }
            })
            .map(|(v, d)| GrantRef {
                verb: v.to_string(),
                directory: d.clone(),
            })
    }
    fn session_grant(&self, _: Audience, _: &str, _: &str, _: Option<&str>) -> Option<GrantRef> {
        None
    }
    fn take_once(&self, _: &str, _: &str, _: Option<&str>) -> bool {
        false
    }
}

fn allowed(d: &Decision) -> bool {
    d.decision == "allow"
}

#[track_caller]
fn expect(d: &Decision, decision: &str, reason: &str) {
    assert_eq!(
        (d.decision, d.reason.as_str()),
        (decision, reason),
        "{}: {} ({:?})",
        d.command,
        d.message,
        d.complex_reasons
    );
}

#[test]
fn symlink_then_dotdot_leaves_the_project() {
    let t = tree();
    t.dir("{H}/cache");
    t.file("{H}/.ssh/id_rsa", "key");
    t.file("{H}/notes.md", "n");
    t.link("{P}/dep", "{H}/cache");
    // dep/.. is the home, not the project.
    expect(
        &t.check("cat dep/../.ssh/id_rsa"),
        "ask",
        "approval_required",
    );
    expect(&t.check("cat dep/../notes.md"), "ask", "approval_required");
    expect(
        &t.check("head -n 5 dep/../notes.md"),
        "ask",
        "approval_required",
    );
    // Under a grant for the project the same read is not covered.
    let grants = Grants(vec![("cat", Some(t.p.clone())), ("rm", Some(t.p.clone()))]);
    let ctx = t.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
    assert!(!allowed(&t.check_with(
        "cat dep/../notes.md",
        &ctx,
        &grants
    )));
    assert!(!allowed(&t.check_with("rm dep/../notes.md", &ctx, &grants)));
    assert!(allowed(&t.check_with("rm -f build.log", &ctx, &grants)));
    // Unattended: outside the zone.
    let headless = t.ctx(Os::Linux, Channel::Headless, Some("{P}"));
    expect(
        &t.check_with("cat dep/../notes.md", &headless, &decision::NoLookups),
        "deny",
        "outside_autonomous_zone",
    );
    // A glob followed by `..` has no known scope.
    t.dir("{P}/src/a");
    let d = t.check("cat src/*/../../x.txt");
    expect(&d, "ask", "complex_command");
    // Must-allow neighbours: in-project reads with ordinary flags.
    t.file("{P}/README.md", "r");
    t.file("{P}/src/a/lib.rs", "x");
    expect(
        &t.check("cat README.md"),
        "allow",
        "safe_verb_in_safe_space",
    );
    expect(
        &t.check("head -n 20 src/a/lib.rs"),
        "allow",
        "safe_verb_in_safe_space",
    );
    expect(
        &t.check("cat src/a/../a/lib.rs"),
        "allow",
        "safe_verb_in_safe_space",
    );
    expect(&t.check("ls -la src"), "allow", "safe_verb_in_safe_space");
}

#[test]
fn a_link_in_the_last_component_is_resolved() {
    let t = tree();
    t.file("{H}/.ssh/id_rsa", "key");
    t.file("{X}/data.txt", "d");
    t.file("{P}/docs/real.txt", "r");
    t.link("{P}/notes.txt", "{H}/.ssh/id_rsa");
    t.link("{P}/data.txt", "{X}/data.txt");
    t.link("{P}/alias.txt", "{P}/docs/real.txt");
    assert!(!allowed(&t.check("cat notes.txt")));
    assert!(!allowed(&t.check("wc -l data.txt")));
    assert!(!allowed(&t.check("cat *.txt")));
    // A file symlink that stays inside the project is fine.
    expect(
        &t.check("cat alias.txt"),
        "allow",
        "safe_verb_in_safe_space",
    );
    expect(
        &t.check("cat docs/*.txt"),
        "allow",
        "safe_verb_in_safe_space",
    );
    // A grant for the project does not cover a read through the link.
    let grants = Grants(vec![("cp", Some(t.p.clone()))]);
    let ctx = t.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
    assert!(!allowed(&t.check_with(
        "cp data.txt copy.txt",
        &ctx,
        &grants
    )));
    assert!(allowed(&t.check_with(
        "cp alias.txt copy.txt",
        &ctx,
        &grants
    )));
    // Unattended: the zone is checked on the resolved path too.
    let headless = t.ctx(Os::Linux, Channel::Headless, Some("{P}"));
    expect(
        &t.check_with("cat data.txt", &headless, &decision::NoLookups),
        "deny",
        "outside_autonomous_zone",
    );
    // File tools: file roots and grants on the resolved path.
    let grants = Grants(vec![("file_read", Some(t.p.clone()))]);
    let mut team = t.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
    team.audience = Audience::Team;
    let d = t.tool("file_read", "data.txt", &team, &grants);
    expect(&d, "deny", "file_access_denied");
    let d = t.tool("file_read", "docs/real.txt", &team, &grants);
    assert!(allowed(&d), "{d:?}");
}

#[test]
fn secrets_in_every_shape() {
    let t = tree();
    t.file("{P}/.env", "SECRET=1");
    t.file("{P}/terraform.tfstate", "{}");
    t.file("{P}/README.md", "r");
    t.file("{P}/keys/id_ed25519.pub", "pub");
    t.file("{P}/src/main.rs", "fn main(){}");
    for cmd in [
        "cat .env",
        "sort .env",
        "cut -d= -f2 .env",
        "uniq credentials",
        "cat .e*",
        "cat .[e]nv",
        "cat < .e*",
        "head *.tfstate",
        "git show HEAD:.env",
        "git log -p -- .env",
        "git blame .env",
        "git diff HEAD~1 -- '*.tfstate'",
        "git log -L1,5:.env",
        "git show :2:.env",
    ] {
        let d = t.check(cmd);
        assert!(!allowed(&d), "{cmd}: {d:?}");
    }
    // A link with an ordinary name leading to a secret inside the project.
    t.link("{P}/config.txt", "{P}/.env");
    assert!(!allowed(&t.check("cat config.txt")));
    for cmd in [
        "cat README.md",
        "cat keys/id_ed25519.pub",
        "cat *.md",
        "ls -la",
        "grep -n main src/main.rs",
        "wc -l src/*.rs",
    ] {
        expect(&t.check(cmd), "allow", "safe_verb_in_safe_space");
    }
}

#[test]
fn the_home_as_project_keeps_its_private_entries_out() {
    let t = tree();
    t.file("{H}/.config/app/settings.ini", "x");
    t.file("{H}/Library/Keychains/login.keychain-db", "x");
    t.file("{H}/work/notes.md", "x");
    let ctx = t.ctx(Os::Linux, Channel::Interactive, Some("{H}"));
    let pol = Policy::new(PolicyConfig::default(), &[]);
    let run = |cmd: &str| {
        let req = Request {
            tool: "shell_execute".into(),
            command: cmd.into(),
            working_directory: Some(t.h.clone()),
        };
        decision::evaluate(&pol, &req, &ctx, &decision::NoLookups)
    };
    assert!(!allowed(&run("cat .config/app/settings.ini")));
    assert!(!allowed(&run("ls Library/Keychains")));
    assert!(!allowed(&run("grep -r token .")));
    assert!(allowed(&run("cat work/notes.md")));
    assert!(allowed(&run("ls work")));
}

#[test]
fn protected_locations_resolved_on_both_sides() {
    let t = tree();
    t.dir("{P}/cfg");
    t.link("{P}/.claude", "{P}/cfg");
    // Writing through the alias writes the protected settings file.
    expect(
        &t.check("echo '{}' > cfg/settings.json"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("cp evil.json cfg/settings.local.json"),
        "deny",
        "protected_path",
    );
    // The gate's own home reached through a link.
    t.link("{P}/gate", "{G}");
    expect(
        &t.check("echo x > gate/config/policy.toml"),
        "deny",
        "protected_path",
    );
    // Host control files in any directory.
    expect(&t.check("echo '{}' > .mcp.json"), "deny", "protected_path");
    expect(
        &t.check("echo x > ~/.claude.json"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("tee .claude/hooks/pre.sh"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("echo x > sub/.claude/commands/x.md"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("echo x > ~/.gemini/trustedFolders.json"),
        "deny",
        "protected_path",
    );
    // Ordinary writes stay ordinary.
    expect(&t.check("echo x > notes.txt"), "ask", "approval_required");
}

#[test]
fn creating_names_onto_protected_locations() {
    let t = tree();
    t.dir("{P}/cfg");
    t.file("{P}/evil.json", "{}");
    for cmd in [
        "ln -s cfg .claude",
        "ln -sfn cfg .gemini",
        "mv cfg .claude",
        "mv evil.json .claude/settings.json",
        "cp -r cfg .codex",
        "install -d .claude/hooks",
        "ln -s /tmp/x ~/.shellgate",
    ] {
        expect(&t.check(cmd), "deny", "protected_path");
    }
    // Created names come from the source.
    t.file("{P}/tpl/.claude/settings.json", "{}");
    t.file("{P}/tpl/src/x.rs", "");
    for cmd in [
        "cp -a tpl/.claude .",
        "cp -r tpl/. .",
        "rsync -a tpl/ .",
        "mv tpl/.claude .",
    ] {
        expect(&t.check(cmd), "deny", "protected_path");
    }
    // A tree with no protected entry follows the ordinary rules.
    t.file("{P}/plain/a/b.txt", "");
    expect(&t.check("cp -r plain/. ."), "ask", "approval_required");
    expect(
        &t.check("ln -s src/x.rs link.rs"),
        "ask",
        "approval_required",
    );
}

/// A tar archive holding `names` (each an empty file).
fn tar_of(path: &str, names: &[&str], gzip: bool) {
    let file = fs::File::create(path).unwrap();
    let w: Box<dyn std::io::Write> = if gzip {
        Box::new(flate2::write::GzEncoder::new(
            file,
            flate2::Compression::default(),
        ))
    } else {
        Box::new(file)
    };
    let mut b = tar::Builder::new(w);
    for n in names {
        let mut h = tar::Header::new_gnu();
        h.set_size(0);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, n, std::io::empty()).unwrap();
    }
    let mut w = b.into_inner().unwrap();
    std::io::Write::flush(&mut w).unwrap();
}

#[test]
fn extraction_reads_the_member_list() {
    let t = tree();
    t.dir("{P}/.claude");
    tar_of(
        &t.sub("{P}/evil.tar"),
        &["src/a.rs", ".claude/settings.json"],
        false,
    );
    tar_of(&t.sub("{P}/evil.tgz"), &["./.claude/settings.json"], true);
    tar_of(&t.sub("{P}/ok.tgz"), &["src/a.rs", "README.md"], true);
    expect(&t.check("tar xf evil.tar"), "deny", "protected_path");
    expect(&t.check("tar -xzf evil.tgz"), "deny", "protected_path");
    expect(&t.check("bsdtar -x -f evil.tgz"), "deny", "protected_path");
    // No protected member: the ordinary rules (even with a .claude/ here).
    expect(&t.check("tar xzf ok.tgz"), "ask", "approval_required");
    expect(&t.check("tar czf out.tgz src"), "ask", "approval_required");
    // An archive the gate cannot read, into the project root: complex.
    let d = t.check("tar xzf missing.tgz");
    expect(&d, "ask", "complex_command");
    assert!(d.complex_reasons.contains(&"unknown_creation".to_string()));
    // The over-deny of issue 18: find -exec in a project holding .claude/
    // is complex (one-shot), never a hard deny.
    let d = t.check("find . -exec cat {} \\;");
    expect(&d, "ask", "complex_command");
}

#[test]
fn hooks_name_protected_files() {
    let t = tree();
    t.file(
        "{P}/.claude/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/scripts/guard.py --strict"}]}]},
           "statusLine": {"type": "command", "command": "~/bin/status.sh"}}"#,
    );
    t.file("{P}/scripts/guard.py", "print()");
    t.file("{P}/scripts/other.py", "print()");
    expect(
        &t.check("echo x > scripts/guard.py"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("sed -i s/a/b/ scripts/guard.py"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("echo x > ~/bin/status.sh"),
        "deny",
        "protected_path",
    );
    expect(
        &t.check("echo x > scripts/other.py"),
        "ask",
        "approval_required",
    );
    // Reading the hook script is ordinary.
    expect(
        &t.check("cat scripts/guard.py"),
        "allow",
        "safe_verb_in_safe_space",
    );
}

fn git_init(dir: &str) {
    fs::create_dir_all(format!("{dir}/.git/objects")).unwrap();
    fs::create_dir_all(format!("{dir}/.git/refs/heads")).unwrap();
    fs::write(format!("{dir}/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
}

#[test]
fn git_internals_and_repositories() {
    let t = tree();
    git_init(&t.p);
    t.file("{P}/evil", "#!/bin/sh");
    for cmd in [
        "echo 'sh evil' > .git/hooks/pre-commit",
        "cp evil .git/hooks/post-checkout",
        "chmod +x .git/hooks/pre-commit",
        "tee -a .git/config",
        "echo x > vendor/lib/.git/config",
        "ln -s ../../evil .git/hooks/pre-push",
    ] {
        let d = t.check(cmd);
        expect(&d, "ask", "complex_command");
        assert!(
            d.complex_reasons.contains(&"git_internals".to_string()),
            "{cmd}"
        );
    }
    // Even under grants.
    let grants = Grants(vec![("cp", None), ("tee", None)]);
    let ctx = t.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
    assert!(!allowed(&t.check_with(
        "cp evil .git/config",
        &ctx,
        &grants
    )));
    assert!(allowed(&t.check_with("cp evil evil2", &ctx, &grants)));
    // File tools: never tool_auto, never granted.
    let d = t.tool(
        "file_write",
        ".git/hooks/pre-commit",
        &ctx,
        &decision::NoLookups,
    );
    expect(&d, "ask", "approval_required");
    assert_eq!(d.options, Some(vec!["approve_once".into(), "deny".into()]));
    let d = t.tool("file_write", "src/lib.rs", &ctx, &decision::NoLookups);
    expect(&d, "allow", "tool_auto");
    // git in the project's own repository is safe …
    t.dir("{P}/src");
    expect(&t.check("git status"), "allow", "safe_verb_in_safe_space");
    expect(
        &t.check("cd src && git log --oneline"),
        "allow",
        "safe_verb_in_safe_space",
    );
    // … not in a nested repository, a bare one, or behind a gitfile into
    // the project's content.
    git_init(&t.sub("{P}/vendor/evil"));
    assert!(!allowed(&t.check("cd vendor/evil && git status")));
    assert!(!allowed(&t.check("git -C vendor/evil log")));
    t.file("{P}/sub/.git", "gitdir: ../vendor/evil/.git\n");
    assert!(!allowed(&t.check("git -C sub status")));
    assert!(!allowed(&t.check("git --git-dir=vendor/evil/.git log")));
    // A monorepo parent is the user's own.
    let mono = tree();
    git_init(&format!("{}/repos", mono.h));
    expect(
        &mono.check("git status"),
        "allow",
        "safe_verb_in_safe_space",
    );
    // A .git symlink at the project root.
    let linked = tree();
    git_init(&linked.x);
    linked.link("{P}/.git", "{X}/.git");
    assert!(!allowed(&linked.check("git status")));
}

/// A grant of a git verb in the project covers the project's own, sound
/// repository — not one planted later (helper-24: a sandboxed build left
/// a `commondir` or a nested repository, and a granted `git status` would
/// have run its config). Such a call offers one-shot approval only.
/// Grants for repositories outside the project hold as before.
#[test]
fn grants_do_not_cover_git_in_a_planted_repository() {
    let t = tree();
    git_init(&t.p);
    let grants = Grants(vec![
        ("git status", Some(t.p.clone())),
        ("git log", Some(t.p.clone())),
        ("git push", Some(t.p.clone())),
        ("git pull", Some(t.x.clone())),
    ]);
    let ctx = t.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
    expect(&t.check_with("git push", &ctx, &grants), "allow", "granted");
    // `.git/commondir` moves config and hooks elsewhere.
    t.file("{P}/.git/commondir", "../../outside\n");
    for cmd in ["git status", "git push", "git log -p"] {
        let d = t.check_with(cmd, &ctx, &grants);
        expect(&d, "ask", "approval_required");
        assert_eq!(
            d.options,
            Some(vec!["approve_once".into(), "deny".into()]),
            "{cmd}"
        );
        // The human reads why before answering Once.
        assert!(
            d.message.contains("no grant can cover it")
                && d.message.contains("does not trust")
                && d.message.contains("commondir"),
            "{cmd}: {}",
            d.message
        );
    }
    fs::remove_file(t.sub("{P}/.git/commondir")).unwrap();
    expect(&t.check_with("git push", &ctx, &grants), "allow", "granted");
    // A nested repository below the project.
    git_init(&t.sub("{P}/vendor/evil"));
    let d = t.check_with("git -C vendor/evil status", &ctx, &grants);
    assert!(!allowed(&d), "{d:?}");
    // A repository outside the project: the human's grant holds.
    git_init(&t.x);
    let d = t.check_with(&format!("git -C {} pull", t.x), &ctx, &grants);
    expect(&d, "allow", "granted");
}

#[test]
fn case_insensitive_systems() {
    let t = tree();
    let mac = t.ctx(Os::Macos, Channel::Interactive, Some("{P}"));
    let d = t.check_with("echo x > .Claude/Settings.json", &mac, &decision::NoLookups);
    expect(&d, "deny", "protected_path");
    let linux = t.ctx(Os::Linux, Channel::Interactive, Some("{P}"));
    let d = t.check_with(
        "echo x > .Claude/Settings.json",
        &linux,
        &decision::NoLookups,
    );
    expect(&d, "ask", "approval_required");
    t.file("{P}/.ENV", "x");
    assert!(!allowed(&t.check_with(
        "cat .ENV",
        &linux,
        &decision::NoLookups
    )));
}

#[test]
fn windows_separators() {
    let t = tree();
    t.file("{P}/sub/a.txt", "x");
    t.file("{H}/repos/secret.txt", "x");
    let win = t.ctx(Os::Windows, Channel::Interactive, Some("{P}"));
    let d = t.check_with("type 'sub\\..\\..\\secret.txt'", &win, &decision::NoLookups);
    assert!(!allowed(&d), "{d:?}");
    let d = t.check_with("type 'sub\\a.txt'", &win, &decision::NoLookups);
    expect(&d, "allow", "safe_verb_in_safe_space");
}

#[test]
fn globs_that_expand_to_options() {
    let t = tree();
    t.file("{P}/a.txt", "TODO");
    t.file("{P}/b.rs", "TODO");
    expect(&t.check("rg TODO *"), "allow", "safe_verb_in_safe_space");
    t.file("{P}/--pre=sh", "");
    let d = t.check("rg TODO *");
    expect(&d, "ask", "complex_command");
    assert!(d
        .complex_reasons
        .contains(&"glob_option_injection".to_string()));
    expect(&t.check("rg TODO -- *"), "allow", "safe_verb_in_safe_space");
}
