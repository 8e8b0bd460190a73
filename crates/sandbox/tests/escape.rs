//! Escape tests: real processes under the real sandbox (the `sandbox` example
//! binary), in a scratch tree, judged by marker files and by what the
//! attempts printed. Each attempt that must fail inside is also shown to work
//! outside (or with the grant), so a test cannot pass because the attempt was
//! broken.
//!
//! When the kernel cannot confine, every test prints "SKIPPED: …" and returns;
//! with `SHELLGATE_REQUIRE_SANDBOX=1` it fails instead.
#![cfg(target_os = "linux")]

use std::fs;
use std::io::{Read, Write};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

const SECRET_SSH: &str = "SECRET-SSH-KEY-3141";
const SECRET_ENV: &str = "SECRET-DOTENV-2718";
const SECRET_GATE: &str = "SECRET-GATE-1618";
const ORDINARY: &str = "ORDINARY-NOTE-1414";

fn require_sandbox() -> bool {
    match shellgate_sandbox::support() {
        Ok(_) => true,
        Err(e) => {
            if std::env::var_os("SHELLGATE_REQUIRE_SANDBOX").is_some() {
                panic!("the kernel cannot confine and SHELLGATE_REQUIRE_SANDBOX is set: {e}");
            }
            eprintln!("SKIPPED: the kernel cannot confine here: {e}");
            false
        }
    }
}

/// The example binaries, built once (a no-op when `cargo test` built them).
fn examples_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("test executable path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("target/<profile>")
            .to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--quiet", "-p", "shellgate-sandbox", "--examples"]);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let st = cmd.status().expect("running cargo build --examples");
        assert!(st.success(), "building the example binaries failed");
        profile_dir.join("examples")
    })
}

fn sandbox_bin() -> PathBuf {
    examples_dir().join("sandbox")
}

fn probe_bin() -> PathBuf {
    examples_dir().join("escape_probe")
}

struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    proj: PathBuf,
    tmp: PathBuf,
}

impl Scratch {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical tempdir");
        let home = root.join("home");
        let proj = root.join("project");
        let tmp = root.join("tmp");
        for d in [
            "home/.ssh",
            "home/.aws",
            "home/.shellgate/config",
            "home/.cargo/registry",
            "etc",
            "sibling",
            "tmp",
            "project/src",
            "project/.git/hooks",
            "project/.git/objects",
            "project/.git/refs",
        ] {
            fs::create_dir_all(root.join(d)).expect("mkdir");
        }
        let w = |p: &str, s: &str| fs::write(root.join(p), s).expect("write");
        w("home/.ssh/id_rsa", SECRET_SSH);
        w("home/.aws/credentials", SECRET_SSH);
        w("home/notes.txt", ORDINARY);
        w("home/.cargo/config.toml", "[build]\n");
        w("home/.shellgate/config/tool-approvals.json", SECRET_GATE);
        w("etc/hostname", ORDINARY);
        w("outside.txt", "OUTSIDE\n");
        w("project/src/main.rs", "fn main() {}\n");
        w("project/.env", SECRET_ENV);
        w("project/.git/HEAD", "ref: refs/heads/main\n");
        w(
            "project/.git/config",
            "[core]\n\trepositoryformatversion = 0\n",
        );
        Scratch {
            _dir: dir,
            root,
            home,
            proj,
            tmp,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn command(&self, profile: &str, extra: &[&str], argv: &[&str]) -> Command {
        let mut c = Command::new(sandbox_bin());
        c.arg("--project-dir")
            .arg(&self.proj)
            .args(["--session", "s1", "--profile", profile])
            .args(extra)
            .arg("--")
            .args(argv)
            .current_dir(&self.proj)
            .env_clear()
            .env("HOME", &self.home)
            .env("SHELLGATE_HOME", self.home.join(".shellgate"))
            .env("TMPDIR", &self.tmp)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default());
        c
    }

    /// Runs `sh -c script` under the sandbox.
    fn sh(&self, profile: &str, script: &str) -> Output {
        self.sh_with(profile, &[], script)
    }

    fn sh_with(&self, profile: &str, extra: &[&str], script: &str) -> Output {
        self.command(profile, extra, &["sh", "-c", script])
            .output()
            .expect("running the sandbox")
    }

    /// Runs the escape probe under the sandbox.
    fn probe(&self, profile: &str, extra: &[&str], args: &[&str]) -> Output {
        let bin = probe_bin();
        let mut argv = vec![bin.to_str().expect("utf-8 path")];
        argv.extend_from_slice(args);
        self.command(profile, extra, &argv)
            .output()
            .expect("running the probe")
    }
}

fn probe_outside(args: &[&str]) -> Output {
    Command::new(probe_bin())
        .args(args)
        .output()
        .expect("running the probe")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_probe_denied(o: &Output, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(1),
        "{what} was not denied: {} {}",
        stdout(o),
        stderr(o)
    );
    assert!(stdout(o).starts_with("denied:"), "{what}: {}", stdout(o));
}

fn assert_probe_ok(o: &Output, what: &str) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{what} did not work: {} {}",
        stdout(o),
        stderr(o)
    );
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap_or_default()
}

struct Sleeper(Child);
impl Sleeper {
    fn new() -> Self {
        Sleeper(Command::new("sleep").arg("60").spawn().expect("sleep"))
    }
    fn pid(&self) -> String {
        self.0.id().to_string()
    }
    fn alive(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}
impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

// --- file system: writes ----------------------------------------------------

#[test]
fn write_inside_project_succeeds_and_outside_fails() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    use std::os::unix::fs::PermissionsExt;
    let mode_before = fs::metadata(s.path("outside.txt"))
        .expect("stat")
        .permissions()
        .mode();
    let o = s.sh(
        "edit",
        "echo made > src/new.txt; sed -i 's/main/main2/' src/main.rs; \
         echo x > \"$HOME/planted\"; echo x > ../etc/planted; echo x > ../sibling/planted; \
         echo x > ../planted; echo x >> ../outside.txt; echo x > \"$TMPDIR/t\"; \
         echo x > \"$HOME/.shellgate/sessions/s1/scratch\"; \
         chmod 666 ../outside.txt; touch -d 2001-01-01 ../outside.txt; chmod +x src/main.rs; true",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&s.path("project/src/new.txt")), "made\n");
    assert_eq!(read(&s.path("project/src/main.rs")), "fn main2() {}\n");
    for p in ["home/planted", "etc/planted", "sibling/planted", "planted"] {
        assert!(!s.path(p).exists(), "{p} was written");
    }
    assert_eq!(read(&s.path("outside.txt")), "OUTSIDE\n");
    // metadata (which Landlock does not govern) is read-only outside too
    let meta = fs::metadata(s.path("outside.txt")).expect("stat");
    assert_eq!(meta.permissions().mode(), mode_before);
    assert!(
        meta.modified().expect("mtime")
            > std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)
    );
    let main = fs::metadata(s.path("project/src/main.rs")).expect("stat");
    assert_eq!(
        main.permissions().mode() & 0o111,
        0o111,
        "chmod inside the project must work"
    );
    assert!(s.tmp.join("t").exists(), "temp dir not writable");
    assert!(
        s.path("home/.shellgate/sessions/s1/scratch").exists(),
        "session dir not writable"
    );
    let err = stderr(&o);
    assert!(
        err.contains("Read-only file system") || err.contains("Permission denied"),
        "{err}"
    );
}

#[test]
fn git_hooks_config_and_host_settings_are_read_only() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let before = read(&s.path("project/.git/config"));
    let o = s.sh(
        "build",
        "echo evil > .git/hooks/pre-commit; git config core.fsmonitor evil 2>/dev/null; \
         echo '[core]' >> .git/config; echo x > .git/info/exclude; \
         mkdir -p .claude && echo '{\"hooks\":1}' > .claude/settings.json; \
         echo x > .codex/config.toml; echo x > .gemini/settings.json; \
         echo objects-ok > .git/objects/ok; true",
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
    assert_eq!(read(&s.path("project/.git/config")), before);
    assert!(!s.path("project/.git/info/exclude").exists());
    assert!(!s.path("project/.claude/settings.json").exists());
    assert!(!s.path("project/.codex/config.toml").exists());
    assert!(!s.path("project/.gemini/settings.json").exists());
    // the rest of .git stays writable (commits need it)
    assert_eq!(read(&s.path("project/.git/objects/ok")), "objects-ok\n");
    assert!(
        stderr(&o).contains("Read-only file system"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn git_hooks_that_do_not_exist_yet_cannot_be_created() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::remove_dir(s.path("project/.git/hooks")).expect("rm hooks");
    let o = s.sh(
        "edit",
        "mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; \
         rmdir .git/hooks; mkdir .git/hooks; echo evil > .git/hooks/post-checkout; true",
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
    assert!(!s.path("project/.git/hooks/post-checkout").exists());
    // what remains is the empty placeholder directory
    let hooks = s.path("project/.git/hooks");
    assert!(hooks.is_dir());
    assert_eq!(fs::read_dir(&hooks).expect("hooks").count(), 0);
}

#[test]
fn git_indirections_are_read_only_too() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    // core.hooksPath naming a directory that does not exist yet, a submodule's
    // git directory, and a worktree whose .git is a file
    fs::write(
        s.path("project/.git/config"),
        "[core]\n\trepositoryformatversion = 0\n\thooksPath = tools/hooks\n",
    )
    .expect("config");
    fs::create_dir_all(s.path("project/.git/modules/libs/sub/hooks")).expect("modules");
    fs::write(s.path("project/.git/modules/libs/sub/HEAD"), "ref: x\n").expect("HEAD");
    fs::write(s.path("project/.git/modules/libs/sub/config"), "[core]\n").expect("config");
    fs::create_dir_all(s.path("sibling/wt")).expect("wt");
    fs::write(s.path("sibling/wt/.git"), "gitdir: /somewhere\n").expect("gitfile");
    let o = s.sh_with(
        "edit",
        &["--writable", s.path("sibling/wt").to_str().expect("utf-8")],
        "mkdir -p tools/hooks; echo evil > tools/hooks/pre-commit; \
         echo evil > .git/modules/libs/sub/hooks/pre-commit; \
         echo '[core]' >> .git/modules/libs/sub/config; mv .git/modules/libs .git/modules/x; \
         echo 'gitdir: /tmp/evil' > ../sibling/wt/.git; echo ok > ../sibling/wt/file; true",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!s.path("project/tools/hooks/pre-commit").exists());
    assert!(!s
        .path("project/.git/modules/libs/sub/hooks/pre-commit")
        .exists());
    assert_eq!(
        read(&s.path("project/.git/modules/libs/sub/config")),
        "[core]\n"
    );
    assert!(!s.path("project/.git/modules/x").exists());
    assert_eq!(read(&s.path("sibling/wt/.git")), "gitdir: /somewhere\n");
    // the extra writable directory is writable otherwise
    assert_eq!(read(&s.path("sibling/wt/file")), "ok\n");
}

#[test]
fn submodule_and_worktree_git_directories_cannot_be_planted() {
    if !require_sandbox() {
        return;
    }
    // Neither `.git/modules` nor `.git/worktrees` exists yet: a git directory
    // planted there with its own config, reached through a gitfile or a
    // gitlink made in the work tree, would run that config on the next
    // unconfined `git status`.
    let s = Scratch::new();
    let o = s.sh(
        "build",
        "mkdir -p .git/modules/evil .git/worktrees/evil; \
         printf '[core]\\n\\tfsmonitor = touch ../PWNED\\n' > .git/modules/evil/config; \
         printf '[core]\\n\\tfsmonitor = touch ../PWNED\\n' > .git/worktrees/evil/config; \
         echo x > .git/modules/evil/HEAD; true",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for dir in ["modules", "worktrees"] {
        let d = s.path(&format!("project/.git/{dir}"));
        // what remains is the empty placeholder directory
        assert!(d.is_dir(), "{dir}");
        assert_eq!(fs::read_dir(&d).expect("dir").count(), 0, "{dir}");
    }
    // The rest of `.git` stays writable (commits need it); the commondir
    // redirection written there is the decision's to refuse
    // (`repo::gitdir_is_sound` in the policy).
    let o = s.sh("build", "echo ../../x > .git/commondir; echo ok");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn moving_protected_directories_away_fails() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let o = s.sh(
        "edit",
        "mv .git/hooks .git/hooks.old; mv .git .git.old; rm -rf .git/hooks; \
         mv .claude claude.old; mv . ../moved; \
         mkdir -p .git/hooks && echo evil > .git/hooks/pre-commit; true",
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("project/.git/hooks.old").exists());
    assert!(!s.path("project/.git.old").exists());
    assert!(!s.path("project/claude.old").exists());
    assert!(!s.path("moved").exists());
    assert!(s.path("project/.git/config").exists());
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
    assert!(stderr(&o).contains("busy"), "{}", stderr(&o));
}

#[test]
fn symlinks_leading_out_do_not_write() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    std::os::unix::fs::symlink(s.path("outside.txt"), s.path("project/pre-existing-link"))
        .expect("symlink");
    std::os::unix::fs::symlink(s.path("sibling"), s.path("project/sibling-link")).expect("symlink");
    let o = s.sh(
        "edit",
        "echo x >> pre-existing-link; echo x > sibling-link/planted; \
         ln -s ../outside.txt made-link && echo x >> made-link; \
         ln -s .git/hooks hooks-link && echo evil > hooks-link/pre-commit; \
         ln -s \"$HOME\" home-link && echo x > home-link/planted; true",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(read(&s.path("outside.txt")), "OUTSIDE\n");
    assert!(!s.path("sibling/planted").exists());
    assert!(!s.path("home/planted").exists());
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
}

#[test]
fn hard_links_to_files_outside_or_protected_fail() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let o = s.sh(
        "edit",
        "ln ../outside.txt hl-out && echo x >> hl-out; \
         ln .git/config hl-config && echo '[core]' >> hl-config; \
         ln \"$HOME/.cargo/config.toml\" hl-cargo && echo x >> hl-cargo; \
         ln src/main.rs src/inner-link && echo ok-inside; true",
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(read(&s.path("outside.txt")), "OUTSIDE\n");
    assert!(!s.path("project/hl-out").exists());
    assert!(!s.path("project/hl-config").exists());
    assert!(!s.path("project/hl-cargo").exists());
    assert_eq!(read(&s.path("home/.cargo/config.toml")), "[build]\n");
    // a link inside the project is fine
    assert!(stdout(&o).contains("ok-inside"), "{}", stderr(&o));
}

#[test]
fn proc_self_and_proc_pid_tricks_fail() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let outside = Sleeper::new();
    let pid = outside.pid();
    let script = format!(
        "exec 3<.git/hooks; echo evil > /proc/self/fd/3/pre-commit; \
         echo x > /proc/self/root{sib}/planted-root; \
         echo x > /proc/{pid}/root{sib}/planted-pid; \
         echo x > /proc/{pid}/cwd/planted-cwd; \
         cat /proc/{pid}/environ > /dev/null && echo environ-read; \
         cat /proc/{pid}/root{home}/.ssh/id_rsa; true",
        sib = s.path("sibling").display(),
        home = s.home.display(),
    );
    let o = s.sh("edit", &script);
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
    assert!(!s.path("sibling/planted-root").exists());
    assert!(!s.path("sibling/planted-pid").exists());
    assert!(!stdout(&o).contains("environ-read"));
    assert!(!stdout(&o).contains(SECRET_SSH));
    let cwd_of_test = std::env::current_dir().expect("cwd");
    assert!(!cwd_of_test.join("planted-cwd").exists());
}

#[test]
fn inherited_directory_descriptors_are_not_passed_through() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    // fd 3 is opened by an outer shell before the sandbox starts
    let sandbox = sandbox_bin();
    let outer = format!(
        "exec 3<\"{proj}/.git\"; exec \"{bin}\" --project-dir \"{proj}\" --profile edit -- \
         sh -c 'echo evil > /proc/self/fd/3/hooks/pre-commit; ls /proc/self/fd/3 >/dev/null 2>&1 && echo fd3-open; true'",
        proj = s.proj.display(),
        bin = sandbox.display()
    );
    let o = Command::new("sh")
        .args(["-c", &outer])
        .env("HOME", &s.home)
        .env("TMPDIR", &s.tmp)
        .output()
        .expect("sh");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("fd3-open"));
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
    // a directory on standard input is refused outright
    let o = s
        .command("edit", &[], &["true"])
        .stdin(fs::File::open(&s.proj).expect("open dir"))
        .output()
        .expect("sandbox");
    assert_eq!(o.status.code(), Some(125), "{}", stderr(&o));
}

// --- file system: reads -----------------------------------------------------

#[test]
fn secrets_are_unreadable_ordinary_files_are_readable() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::write(s.home.join(".cargo/notes.txt"), ORDINARY).expect("write");
    let o = s.sh(
        "read",
        "cat \"$HOME/.ssh/id_rsa\" \"$HOME/.aws/credentials\" .env \
         \"$HOME/.shellgate/config/tool-approvals.json\"; \
         cat \"$HOME/.cargo/notes.txt\" ../etc/hostname; head -c 4 /etc/os-release; true",
    );
    let out = stdout(&o);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert!(!out.contains(SECRET_ENV), "{out}");
    assert!(!out.contains(SECRET_GATE), "{out}");
    assert_eq!(out.matches(ORDINARY).count(), 2, "{out} {}", stderr(&o));
    // and the secrets are still there, unchanged, outside
    assert_eq!(read(&s.path("home/.ssh/id_rsa")), SECRET_SSH);
    assert_eq!(read(&s.path("project/.env")), SECRET_ENV);
}

/// rt25 F7: the credential stores of the build tools build2.toml runs
/// sandboxed (sbt/Ivy, Stack, Dart/Flutter pub, Leiningen, Hex) are hidden
/// from a build; the tools' ordinary configuration stays readable.
#[test]
fn build_tool_credential_stores_are_unreadable() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let stores = [
        ".sbt/.credentials",
        ".sbt/1.0/credentials.sbt",
        ".ivy2/.credentials",
        ".stack/upload/credentials.json",
        ".pub-cache/credentials.json",
        ".config/dart/pub-credentials.json",
        ".config/dart/pub-tokens.json",
        ".lein/credentials.clj",
        ".config/rebar3/hex.config",
        ".hex/hex.config",
    ];
    for rel in stores {
        let p = s.home.join(rel);
        fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        fs::write(&p, SECRET_SSH).expect("write");
    }
    fs::write(s.home.join(".sbt/1.0/plugins.sbt"), ORDINARY).expect("write");
    let script = stores
        .iter()
        .map(|r| format!("cat \"$HOME/{r}\";"))
        .collect::<String>()
        + " cat \"$HOME/.sbt/1.0/plugins.sbt\"; true";
    let o = s.sh("build", &script);
    let out = stdout(&o);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert_eq!(out.matches(ORDINARY).count(), 1, "{out} {}", stderr(&o));
}

/// rt25: TLS private keys under /etc/ssl/private are hidden from a caller
/// that can read them outside (root keeps its uid in the sandbox). Runs
/// only where such a readable key exists.
#[test]
fn system_tls_private_keys_are_unreadable() {
    if !require_sandbox() {
        return;
    }
    let Some(key) = fs::read_dir("/etc/ssl/private")
        .ok()
        .and_then(|mut d| d.find_map(|e| e.ok().map(|e| e.path())))
        .filter(|p| fs::read(p).is_ok_and(|b| !b.is_empty()))
    else {
        return;
    };
    let s = Scratch::new();
    let o = s.sh("build", &format!("cat '{}' | wc -c", key.display()));
    assert_eq!(stdout(&o).trim(), "0", "{} {}", stdout(&o), stderr(&o));
}

#[test]
fn read_profile_writes_nothing_in_the_project() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let o = s.sh(
        "read",
        "echo x > src/new.txt; echo x >> src/main.rs; rm src/main.rs; mkdir newdir; \
         echo x > \"$TMPDIR/t\"; echo x > /dev/null && echo devnull-ok",
    );
    assert!(stdout(&o).contains("devnull-ok"));
    assert!(!s.path("project/src/new.txt").exists());
    assert!(!s.path("project/newdir").exists());
    assert_eq!(read(&s.path("project/src/main.rs")), "fn main() {}\n");
    assert!(s.tmp.join("t").exists(), "temp dir must stay writable");
}

/// Profile `build` lets a command write the toolchain caches — but a cache's
/// contents run later, unconfined, in every project (registry sources,
/// compiled objects, a Gradle distribution), so without the network grant
/// the writes land in an overlay kept in the session: later sandboxed runs
/// of the session see them, the real cache never does. With the network
/// granted (a human approved the downloads) they write through. The
/// caches' config files stay read-only either way.
#[test]
fn build_profile_writes_caches_in_a_session_layer() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::write(s.path("home/.cargo/registry/existing"), "real\n").expect("write");
    let o = s.sh(
        "build",
        "echo poisoned > \"$HOME/.cargo/registry/existing\"; echo x > \"$HOME/.cargo/registry/cached\"; \
         echo x >> \"$HOME/.cargo/config.toml\"; cat \"$HOME/.cargo/registry/existing\"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // the command saw its writes ...
    assert_eq!(stdout(&o), "poisoned\n");
    // ... the real cache did not change
    assert_eq!(read(&s.path("home/.cargo/registry/existing")), "real\n");
    assert!(!s.path("home/.cargo/registry/cached").exists());
    assert_eq!(read(&s.path("home/.cargo/config.toml")), "[build]\n");
    // the session's next sandboxed run sees the layer
    let o = s.sh("build", "cat \"$HOME/.cargo/registry/cached\"");
    assert_eq!(stdout(&o), "x\n", "{}", stderr(&o));
    // with the network granted, writes reach the real cache
    let o = s.sh_with(
        "build",
        &["--network"],
        "echo downloaded > \"$HOME/.cargo/registry/net\"",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&s.path("home/.cargo/registry/net")), "downloaded\n");
    // edit does not get the caches at all
    let o = s.sh("edit", "echo x > \"$HOME/.cargo/registry/edit\"; true");
    assert_eq!(o.status.code(), Some(0));
    assert!(!s.path("home/.cargo/registry/edit").exists());
    let o = s.sh("edit", "cat \"$HOME/.cargo/registry/cached\"");
    assert_ne!(o.status.code(), Some(0), "edit must not see the layer");
}

/// The layers live in the session directory, which sandboxed runs may
/// write: a link planted in place of a layer must not make the unconfined
/// set-up create directories where it points (red-team finding C1); a cache
/// relocated into a writable root (`GOCACHE` below the temp directory) is
/// read-only rather than written through (C2).
#[test]
fn cache_layers_cannot_be_redirected() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let o = s.sh("build", "echo x > \"$HOME/.cargo/registry/f\"");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let layers = s.path("home/.shellgate/sessions/s1/cache-layers");
    let layer = fs::read_dir(&layers)
        .expect("layers")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with("registry"))
        .expect("the registry's layer");
    let victim = s.path("outside-victim");
    fs::create_dir_all(&victim).expect("victim");
    let o = s.sh(
        "build",
        &format!(
            "rm -rf '{l}' && ln -s '{v}' '{l}'",
            l = layer.display(),
            v = victim.display()
        ),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = s.sh("build", "echo ran");
    assert_ne!(
        stdout(&o),
        "ran\n",
        "the sandbox must refuse: {}",
        stderr(&o)
    );
    assert_eq!(fs::read_dir(&victim).expect("victim").count(), 0);
    fs::remove_file(&layer).expect("remove the planted link");

    let gocache = s.tmp.join("gocache");
    fs::create_dir_all(&gocache).expect("gocache");
    fs::write(gocache.join("obj"), "real\n").expect("obj");
    let o = s
        .command(
            "build",
            &[],
            &[
                "sh",
                "-c",
                "echo EVIL > \"$GOCACHE/obj\"; cat \"$GOCACHE/obj\"",
            ],
        )
        .env("GOCACHE", &gocache)
        .output()
        .expect("sandbox");
    assert_eq!(stdout(&o), "real\n", "{}", stderr(&o));
    assert_eq!(read(&gocache.join("obj")), "real\n");
}

/// The supervising processes cannot be traced by the command (same user,
/// same Landlock domain): a traced init could be made to outlive its parent
/// and keep the command running (red-team round three, F1).
#[test]
fn the_namespace_init_cannot_be_traced() {
    if !require_sandbox() {
        return;
    }
    if std::process::Command::new("python3")
        .arg("-V")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: no python3 to call ptrace with");
        return;
    }
    let s = Scratch::new();
    let o = s.sh(
        "build",
        "python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); \
         print(l.ptrace(0x4206, 1, 0, 0))'",
    );
    assert_eq!(stdout(&o), "-1\n", "{}", stderr(&o));
}

/// A project without a repository: none can be made at its root (the next
/// unconfined `git status` would take it for the project's own), and the
/// empty placeholder left there is passed over by git like a missing `.git`.
#[test]
fn no_repository_can_be_created_at_a_project_root_without_one() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::remove_dir_all(s.path("project/.git")).expect("rm .git");
    let o = s.sh(
        "build",
        "git init -q 2>/dev/null; mkdir -p .git/objects; echo 'ref: refs/heads/main' > .git/HEAD; true",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let git = s.path("project/.git");
    assert!(git.is_dir());
    assert_eq!(fs::read_dir(&git).expect(".git").count(), 0);
    // The placeholder stays on disk: the next run must not make it a
    // repository either (red-team round three, F4).
    let o = s.sh(
        "build",
        "mkdir -p .git/objects .git/refs/heads; echo 'ref: refs/heads/main' > .git/HEAD; true",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(fs::read_dir(&git).expect(".git").count(), 0);
    let st = std::process::Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .current_dir(s.path("project"))
        .env("GIT_CEILING_DIRECTORIES", &s.root)
        .output()
        .expect("git");
    assert!(!st.status.success(), "git must not find a repository there");
}

/// Config git reads like the repository's own, where it falls inside a
/// writable root (red-team round two, G6/G7): a file the repository's config
/// includes from the project (`include.path = ../.gitconfig`, existing or
/// not), and the user's git config when `XDG_CONFIG_HOME` lies below the
/// temp directory.
#[test]
fn included_and_xdg_git_config_are_read_only() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::write(
        s.path("project/.git/config"),
        "[core]\n\tbare = false\n[include]\n\tpath = ../team.gitconfig\n\
         [includeIf \"gitdir:/\"]\n\tpath = ../later.gitconfig\n",
    )
    .expect("config");
    fs::write(s.path("project/team.gitconfig"), "[user]\n\tname = t\n").expect("team");
    // a relative hooksPath in the user's own config names the work tree's
    fs::write(
        s.path("home/.gitconfig"),
        "[core]\n\thooksPath = .githooks ; team hooks\n",
    )
    .expect("gitconfig");
    let xdg = s.tmp.join("xdg");
    fs::create_dir_all(&xdg).expect("xdg");
    let o = s
        .command(
            "build",
            &[],
            &[
                "sh",
                "-c",
                "echo '[core]' >> team.gitconfig; echo '[core]' > later.gitconfig; \
                 mkdir -p \"$XDG_CONFIG_HOME/git\"; echo '[core]' > \"$XDG_CONFIG_HOME/git/config\"; \
                 mkdir -p .githooks; echo evil > .githooks/post-index-change; \
                 echo ok > ordinary.txt",
            ],
        )
        .env("XDG_CONFIG_HOME", &xdg)
        .output()
        .expect("sandbox");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        read(&s.path("project/team.gitconfig")),
        "[user]\n\tname = t\n"
    );
    assert_eq!(read(&s.path("project/later.gitconfig")), "");
    assert!(!xdg.join("git/config").exists());
    assert!(!s.path("project/.githooks/post-index-change").exists());
    assert_eq!(read(&s.path("project/ordinary.txt")), "ok\n");
}

/// Nothing the command starts outlives it (red-team round two, G2): a
/// detached background process could otherwise change the project after the
/// gate has looked at it (a repository swapped in between the gate's check
/// of `git status` and git's run).
#[test]
fn background_processes_end_with_the_command() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let o = s.sh(
        "build",
        "(sleep 1; echo late > late-bg.txt) & \
         setsid sh -c 'sleep 1; echo late > late-setsid.txt' </dev/null >/dev/null 2>&1 & \
         nohup sh -c 'sleep 1; echo late > late-nohup.txt' </dev/null >/dev/null 2>&1 & \
         echo started; exit 3",
    );
    assert_eq!(stdout(&o), "started\n", "{}", stderr(&o));
    assert_eq!(
        o.status.code(),
        Some(3),
        "the command's status passes through"
    );
    std::thread::sleep(std::time::Duration::from_millis(2500));
    for f in ["late-bg.txt", "late-setsid.txt", "late-nohup.txt"] {
        assert!(
            !s.path(&format!("project/{f}")).exists(),
            "{f} was written after the sandbox ended"
        );
    }
    // a command killed by a signal: 128 + the signal, as a shell reports it
    let o = s.sh("build", "kill -TERM $$");
    assert_eq!(o.status.code(), Some(128 + 15), "{}", stderr(&o));
}

// --- network ----------------------------------------------------------------

#[test]
fn tcp_to_a_host_listener_fails_unless_granted() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("addr").to_string();
    let accepted = |l: &TcpListener| -> bool {
        for _ in 0..20 {
            if let Ok((mut c, _)) = l.accept() {
                let mut buf = String::new();
                let _ = c.set_read_timeout(Some(Duration::from_secs(1)));
                let _ = c.read_to_string(&mut buf);
                return buf.contains("probe");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        false
    };
    let o = s.probe("build", &[], &["tcp", &addr]);
    assert_probe_denied(&o, "tcp connect");
    assert!(!accepted(&listener));
    let o = s.probe("build", &["--network"], &["tcp", &addr]);
    assert_probe_ok(&o, "tcp connect with --network");
    assert!(accepted(&listener));
}

#[test]
fn udp_to_a_host_socket_fails_unless_granted() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let sock = UdpSocket::bind("127.0.0.1:0").expect("bind");
    sock.set_read_timeout(Some(Duration::from_millis(700)))
        .expect("timeout");
    let addr = sock.local_addr().expect("addr").to_string();
    let received = |u: &UdpSocket| {
        let mut buf = [0u8; 16];
        matches!(u.recv_from(&mut buf), Ok((n, _)) if &buf[..n] == b"probe")
    };
    let _ = s.probe("build", &[], &["udp", &addr]);
    assert!(!received(&sock), "a datagram left the sandbox");
    let o = s.probe("build", &["--network"], &["udp", &addr]);
    assert_probe_ok(&o, "udp with --network");
    assert!(received(&sock));
}

#[test]
fn unix_sockets_of_host_daemons_stay_closed_even_with_network() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let path = s.path("daemon.sock");
    let listener = UnixListener::bind(&path).expect("bind unix");
    let p = path.to_str().expect("utf-8");
    assert_probe_ok(&probe_outside(&["unix", p]), "unix connect outside");
    let _ = listener.accept();
    assert_probe_denied(&s.probe("build", &[], &["unix", p]), "unix connect");
    assert_probe_denied(
        &s.probe("build", &["--network"], &["unix", p]),
        "unix connect with --network",
    );
    // the socket in the writable temp dir is no way around it
    let tpath = s.tmp.join("d.sock");
    let _l2 = UnixListener::bind(&tpath).expect("bind unix in tmp");
    assert_probe_denied(
        &s.probe("edit", &[], &["unix", tpath.to_str().expect("utf-8")]),
        "unix connect in temp",
    );
}

// --- processes --------------------------------------------------------------

#[test]
fn ptrace_and_signals_to_outside_processes_fail() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let mut target = Sleeper::new();
    let pid = target.pid();
    assert_probe_denied(&s.probe("edit", &[], &["ptrace", &pid]), "ptrace attach");
    assert_probe_denied(&s.probe("edit", &[], &["kill", &pid]), "kill");
    let o = s.sh("edit", &format!("kill -9 {pid}; kill -9 -1; true"));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(target.alive(), "a process outside was killed");
    // control: the same probe works outside the sandbox
    let mut other = Sleeper::new();
    assert_probe_ok(&probe_outside(&["ptrace", &other.pid()]), "ptrace outside");
    assert!(other.alive());
}

#[test]
fn terminal_injection_io_uring_and_keyrings_are_refused() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    for what in ["tiocsti", "io_uring", "keyctl"] {
        assert_probe_ok(&probe_outside(&[what]), &format!("{what} outside"));
        assert_probe_denied(&s.probe("build", &["--network"], &[what]), what);
    }
}

// --- failing closed -----------------------------------------------------------

#[test]
fn refusals_exit_125_with_a_reason() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    // a shallow project directory
    let o = Command::new(sandbox_bin())
        .args(["--project-dir"])
        .arg(&s.home)
        .args(["--", "true"])
        .env("HOME", &s.home)
        .env("TMPDIR", &s.tmp)
        .output()
        .expect("sandbox");
    assert_eq!(o.status.code(), Some(125));
    assert!(stderr(&o).contains("too shallow"), "{}", stderr(&o));
    // a protected path that is a symlink
    std::os::unix::fs::symlink(s.path("sibling"), s.path("project/.claude")).expect("symlink");
    let o = s.sh("edit", "true");
    assert_eq!(o.status.code(), Some(125));
    assert!(stderr(&o).contains("symlink"), "{}", stderr(&o));
    fs::remove_file(s.path("project/.claude")).expect("rm");
    // the kernel refusing a step: inside a sandbox, mounts are forbidden, so a
    // nested sandbox cannot set itself up and must not run the command
    let inner = format!(
        "\"{}\" --project-dir \"{}\" --profile edit -- sh -c 'echo ran > nested-ran'",
        sandbox_bin().display(),
        s.proj.display()
    );
    let o = s.sh("edit", &format!("{inner}; echo \"inner=$?\""));
    assert!(
        stdout(&o).contains("inner=125"),
        "{} {}",
        stdout(&o),
        stderr(&o)
    );
    assert!(!s.path("project/nested-ran").exists());
    assert!(stderr(&o).contains("shellgate sandbox:"), "{}", stderr(&o));
    // a missing command
    let o = s.sh("edit", "exit 0");
    assert_eq!(o.status.code(), Some(0));
    let o = s
        .command("edit", &[], &["definitely-not-a-command-xyz"])
        .output()
        .expect("run");
    assert_eq!(o.status.code(), Some(127));
}

#[test]
fn exit_status_and_stdio_pass_through() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let mut child = s
        .command(
            "edit",
            &[],
            &["sh", "-c", "read line; echo \"got $line\"; exit 7"],
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hello\n")
        .expect("write");
    let o = child.wait_with_output().expect("wait");
    assert_eq!(o.status.code(), Some(7));
    assert_eq!(stdout(&o), "got hello\n");
    // servers the command starts on its own loopback work without --network
    let o = s.sh(
        "edit",
        "command -v python3 >/dev/null || { echo skip-no-python; exit 0; }; \
         python3 -c 'import socket; l=socket.socket(); l.bind((\"127.0.0.1\",0)); l.listen(); \
         c=socket.create_connection(l.getsockname()); print(\"loopback-ok\")'",
    );
    let out = stdout(&o);
    assert!(
        out.contains("loopback-ok") || out.contains("skip-no-python"),
        "{out} {}",
        stderr(&o)
    );
}

// --- an unprivileged caller ---------------------------------------------------

/// The tests above run as whoever runs `cargo test` (root on CI). Real users
/// are not root: when the tests run as root, this one repeats the essentials
/// as an unprivileged uid (via `setpriv`), where user namespaces are the
/// unprivileged kind.
#[test]
fn unprivileged_caller_is_confined_too() {
    if !require_sandbox() {
        return;
    }
    // SAFETY: getuid cannot fail.
    if unsafe { libc::getuid() } != 0 || Command::new("setpriv").arg("--version").output().is_err()
    {
        eprintln!("SKIPPED: needs root and setpriv to switch to an unprivileged uid");
        return;
    }
    const UID: &str = "4242";
    let s = Scratch::new();
    let bin = s.path("bin");
    fs::create_dir_all(&bin).expect("bin");
    fs::copy(sandbox_bin(), bin.join("sandbox")).expect("copy");
    fs::copy(probe_bin(), bin.join("escape_probe")).expect("copy");
    let st = Command::new("chown")
        .args(["-R", &format!("{UID}:{UID}")])
        .arg(&s.root)
        .status()
        .expect("chown");
    assert!(st.success());
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&s.root, fs::Permissions::from_mode(0o755)).expect("chmod");
    let as_user = |argv: &[&str]| {
        let mut c = Command::new("setpriv");
        c.args(["--reuid", UID, "--regid", UID, "--clear-groups", "--"])
            .args(argv)
            .current_dir(&s.proj)
            .env_clear()
            .env("HOME", &s.home)
            .env("TMPDIR", &s.tmp)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin");
        c
    };
    let mut target = as_user(&["sleep", "60"]).spawn().expect("sleep");
    let pid = target.id().to_string();
    let probe = bin.join("escape_probe");
    let probe = probe.to_str().expect("utf-8");
    let script = format!(
        "echo made > src/new.txt; echo x > ../sibling/planted; echo evil > .git/hooks/pre-commit; \
         cat \"$HOME/.ssh/id_rsa\"; {probe} ptrace {pid}; {probe} kill {pid}; true"
    );
    let sandbox = bin.join("sandbox");
    let o = as_user(&[
        sandbox.to_str().expect("utf-8"),
        "--session",
        "s1",
        "--",
        "sh",
        "-c",
        &script,
    ])
    .output()
    .expect("sandbox");
    let outside = as_user(&[probe, "ptrace", &pid]).output().expect("probe");
    let alive = matches!(target.try_wait(), Ok(None));
    let _ = target.kill();
    let _ = target.wait();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&s.path("project/src/new.txt")), "made\n");
    assert!(!s.path("sibling/planted").exists());
    assert!(!s.path("project/.git/hooks/pre-commit").exists());
    let out = stdout(&o);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert_eq!(out.matches("denied:").count(), 2, "{out}");
    assert!(alive, "the process outside was killed");
    assert_probe_ok(&outside, "ptrace by the same user outside");
}

/// helper-24 F5: the agents' own credentials and shell histories are
/// hidden, and without the network a credential in the environment is
/// removed (with the network granted it is passed on: a private registry
/// may need it). Ordinary variables pass.
#[test]
fn agent_credentials_histories_and_secret_variables_are_not_readable() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    for (rel, text) in [
        ("home/.claude/.credentials.json", SECRET_SSH),
        ("home/.codex/auth.json", SECRET_SSH),
        ("home/.gemini/oauth_creds.json", SECRET_SSH),
        ("home/.bash_history", SECRET_SSH),
        ("home/.config/rclone/rclone.conf", SECRET_SSH),
    ] {
        fs::create_dir_all(s.path(rel).parent().expect("parent")).expect("mkdir");
        fs::write(s.path(rel), text).expect("write");
    }
    let script = "cat \"$HOME/.claude/.credentials.json\" \"$HOME/.codex/auth.json\" \
                  \"$HOME/.gemini/oauth_creds.json\" \"$HOME/.bash_history\" \
                  \"$HOME/.config/rclone/rclone.conf\" 2>/dev/null; \
                  echo \"t=$GITHUB_TOKEN k=$OPENAI_API_KEY p=$DB_PASSWORD o=$ORDINARY_VAR\"";
    let run = |extra: &[&str]| {
        let o = s
            .command("build", extra, &["sh", "-c", script])
            .env("GITHUB_TOKEN", SECRET_ENV)
            .env("OPENAI_API_KEY", SECRET_ENV)
            .env("DB_PASSWORD", SECRET_ENV)
            .env("ORDINARY_VAR", ORDINARY)
            .output()
            .expect("running the sandbox");
        stdout(&o)
    };
    let out = run(&[]);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert!(!out.contains(SECRET_ENV), "{out}");
    assert!(out.contains(&format!("o={ORDINARY}")), "{out}");
    let out = run(&["--network"]);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert!(out.contains(&format!("t={SECRET_ENV}")), "{out}");
}

/// helper-24 F4 and F2: where they exist, git hook managers' scripts,
/// editors' task files and direnv's file are read-only, and so are the
/// config and hooks of a repository below the project root.
#[test]
fn hook_managers_editor_tasks_and_nested_repositories_are_read_only() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    for d in [
        "project/.husky",
        "project/.vscode",
        "project/r1/.git/hooks",
        "project/r1/.git/objects",
        "project/r1/src",
    ] {
        fs::create_dir_all(s.path(d)).expect("mkdir");
    }
    fs::write(s.path("project/.husky/pre-commit"), "npm test\n").expect("husky");
    fs::write(s.path("project/.vscode/tasks.json"), "{}\n").expect("tasks");
    fs::write(s.path("project/.envrc"), "use nix\n").expect("envrc");
    fs::create_dir_all(s.path("project/.cargo")).expect("mkdir");
    fs::write(s.path("project/.cargo/config.toml"), "[build]\n").expect("cargo");
    fs::write(s.path("project/rust-toolchain.toml"), "[toolchain]\n").expect("rt");
    fs::write(s.path("project/r1/.git/HEAD"), "ref: refs/heads/main\n").expect("head");
    fs::write(s.path("project/r1/.git/config"), "[core]\n").expect("config");
    let o = s.sh(
        "build",
        "echo 'touch /tmp/x' >> .husky/pre-commit; echo '{\"x\":1}' > .vscode/tasks.json; \
         echo 'curl x' >> .envrc; echo evil > r1/.git/hooks/pre-commit; \
         echo 'rustc-wrapper = \"/tmp/w\"' >> .cargo/config.toml; \
         echo 'path = \"/tmp/t\"' >> rust-toolchain.toml; \
         echo '[core] fsmonitor = x' >> r1/.git/config; \
         echo ok > r1/src/a.rs; echo ok > r1/.git/objects/ok; mkdir -p .idea; echo ok > .idea/x; true",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read(&s.path("project/.husky/pre-commit")), "npm test\n");
    assert_eq!(read(&s.path("project/.vscode/tasks.json")), "{}\n");
    assert_eq!(read(&s.path("project/.envrc")), "use nix\n");
    assert_eq!(read(&s.path("project/.cargo/config.toml")), "[build]\n");
    assert_eq!(
        read(&s.path("project/rust-toolchain.toml")),
        "[toolchain]\n"
    );
    assert!(!s.path("project/r1/.git/hooks/pre-commit").exists());
    assert_eq!(read(&s.path("project/r1/.git/config")), "[core]\n");
    // the rest stays writable: the nested repository's objects and files,
    // and a name that did not exist (no placeholder is made for it)
    assert_eq!(read(&s.path("project/r1/src/a.rs")), "ok\n");
    assert_eq!(read(&s.path("project/r1/.git/objects/ok")), "ok\n");
    assert_eq!(read(&s.path("project/.idea/x")), "ok\n");
}

/// rt6: the home is closed but for the toolchains, caches and the tools'
/// ordinary configuration (an allow-list): other projects' `.env`, shell
/// start-up files with exported tokens, browser and chat cookies, the
/// tokens of tools no list names, shell histories are unreadable, as are
/// the other homes and `/run/secrets`-like places. What builds read stays
/// readable: `~/.cargo`, `~/.gitconfig`, `~/.cache`, a `PATH` entry in the
/// home with its tool's prefix, the files above the project.
#[test]
fn the_home_is_closed_but_for_toolchains_and_configuration() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let closed = [
        "home/other-project/.env",
        "home/other-project/src/main.rs",
        "home/.bashrc",
        "home/.profile",
        "home/.config/BraveSoftware/Default/Cookies",
        "home/.config/Slack/Cookies",
        "home/.config/some-cli/hosts.yml",
        "home/.config/fish/fish_variables",
        "home/.local/share/atuin/history.db",
        "home/.minikube/client.key",
        "home/notes.txt",
    ];
    let open = [
        "home/.cargo/env",
        "home/.gitconfig",
        "home/.cache/pip/x",
        "home/.local/bin/tool",
        "home/tools/mytool/bin/run",
        "home/tools/mytool/lib/helper",
        "home/work/go.work",
    ];
    for rel in closed {
        fs::create_dir_all(s.path(rel).parent().expect("parent")).expect("mkdir");
        fs::write(s.path(rel), SECRET_SSH).expect("write");
    }
    for rel in open {
        fs::create_dir_all(s.path(rel).parent().expect("parent")).expect("mkdir");
        fs::write(s.path(rel), ORDINARY).expect("write");
    }
    // a project below the home, in a workspace directory
    let proj = s.path("home/work/app");
    fs::create_dir_all(proj.join("src")).expect("mkdir");
    let script = closed
        .iter()
        .chain(open.iter())
        .map(|r| format!("cat '{}';", s.path(r).display()))
        .collect::<String>()
        + " true";
    let path = format!(
        "{}:{}",
        s.path("home/tools/mytool/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(sandbox_bin())
        .arg("--project-dir")
        .arg(&proj)
        .args(["--session", "s1", "--profile", "build", "--", "sh", "-c"])
        .arg(&script)
        .current_dir(&proj)
        .env_clear()
        .env("HOME", &s.home)
        .env("SHELLGATE_HOME", s.home.join(".shellgate"))
        .env("TMPDIR", &s.tmp)
        .env("PATH", &path)
        .output()
        .expect("running the sandbox");
    let out = stdout(&o);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert_eq!(
        out.matches(ORDINARY).count(),
        open.len(),
        "{out} {}",
        stderr(&o)
    );
    // the same files are readable outside
    for rel in closed {
        assert_eq!(read(&s.path(rel)), SECRET_SSH);
    }
}

/// rt6: `~/.kube` is hidden whole and `~/.kube/config` is listed too; the
/// sandbox used to fail to start (125) for every user with a kubeconfig.
#[test]
fn a_secret_inside_a_hidden_directory_does_not_stop_the_sandbox() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::create_dir_all(s.home.join(".kube")).expect("mkdir");
    fs::write(s.home.join(".kube/config"), SECRET_SSH).expect("write");
    let o = s.sh("build", "cat \"$HOME/.kube/config\"; echo started");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("started"), "{}", stderr(&o));
    assert!(!stdout(&o).contains(SECRET_SSH), "{}", stdout(&o));
}

/// rt6: variables the gate asks before printing (`echo $NPM_CONFIG__AUTH`)
/// and credentials by their value (a proxy or database URL with a password)
/// do not reach a sandboxed command without the network; a build's
/// ordinary variables do.
#[test]
fn credential_variables_by_name_or_value_are_removed() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let secrets = [
        ("DB_PASS", SECRET_ENV.to_string()),
        ("MYSQL_PWD", SECRET_ENV.to_string()),
        ("NPM_CONFIG__AUTH", SECRET_ENV.to_string()),
        ("DOCKER_AUTH_CONFIG", SECRET_ENV.to_string()),
        ("CI_JOB_JWT", SECRET_ENV.to_string()),
        ("HTTPS_PROXY", format!("http://u:{SECRET_ENV}@proxy:3128")),
        ("REDIS_URL", format!("redis://:{SECRET_ENV}@127.0.0.1:6379")),
    ];
    let mut cmd = s.command("build", &[], &["sh", "-c", "env"]);
    for (k, v) in &secrets {
        cmd.env(k, v);
    }
    cmd.env("GIT_AUTHOR_NAME", ORDINARY)
        .env("NO_PROXY", ORDINARY);
    let o = cmd.output().expect("running the sandbox");
    let out = stdout(&o);
    assert!(!out.contains(SECRET_ENV), "{out}");
    assert_eq!(out.matches(ORDINARY).count(), 2, "{out} {}", stderr(&o));
}

/// rt6 F6: a root caller keeps its uid in the sandbox and owns the files
/// only root may read (`/var/cache/debconf/passwords.dat`, a 0600 file or a
/// 0700 directory of `/etc`): below the system trees, what others may not
/// read is closed to a root caller's command too. Runs as root only (for
/// anyone else the file modes already refuse).
#[test]
fn root_only_system_files_are_unreadable_for_a_root_caller() {
    if !require_sandbox() {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: not root");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let sys = tempfile::tempdir_in("/var/tmp").expect("tempdir in /var/tmp");
    let d = sys.path();
    fs::set_permissions(d, fs::Permissions::from_mode(0o755)).expect("chmod");
    fs::write(d.join("root-only.conf"), SECRET_SSH).expect("write");
    fs::set_permissions(d.join("root-only.conf"), fs::Permissions::from_mode(0o600))
        .expect("chmod");
    fs::create_dir(d.join("private")).expect("mkdir");
    fs::write(d.join("private/conn"), SECRET_SSH).expect("write");
    fs::set_permissions(d.join("private"), fs::Permissions::from_mode(0o700)).expect("chmod");
    fs::write(d.join("public.conf"), ORDINARY).expect("write");
    fs::set_permissions(d.join("public.conf"), fs::Permissions::from_mode(0o644)).expect("chmod");
    let s = Scratch::new();
    let o = s.sh(
        "build",
        &format!(
            "cd '{0}' && cat root-only.conf private/conn public.conf; true",
            d.display()
        ),
    );
    let out = stdout(&o);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert!(out.contains(ORDINARY), "{out} {}", stderr(&o));
    assert_eq!(read(&d.join("root-only.conf")), SECRET_SSH);
}

/// rt6: programs linked onto `PATH` from elsewhere in the home
/// (`~/.local/bin/x -> ~/.local/share/x/bin/x`, as pipx, poetry and uv
/// install them) run with their prefix readable; but a `PATH` entry the
/// command can change (an activated `.venv/bin` in the project, made a link
/// to `~/.config/…` by an earlier run) opens nothing.
#[test]
fn path_links_open_their_programs_but_not_through_the_project() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    let w = |rel: &str, text: &str| {
        fs::create_dir_all(s.path(rel).parent().expect("parent")).expect("mkdir");
        fs::write(s.path(rel), text).expect("write");
    };
    w(
        "home/.local/share/mytool/bin/mytool",
        "#!/bin/sh\necho mytool\n",
    );
    w("home/.local/share/mytool/lib/data.txt", ORDINARY);
    w("home/.config/gh-like/hosts.yml", SECRET_SSH);
    w("home/.local/share/keyrings-like/login", SECRET_SSH);
    fs::create_dir_all(s.path("home/.local/bin")).expect("mkdir");
    std::os::unix::fs::symlink(
        s.path("home/.local/share/mytool/bin/mytool"),
        s.path("home/.local/bin/mytool"),
    )
    .expect("link");
    // the project's `.venv/bin` is a link an earlier run made
    fs::create_dir_all(s.proj.join(".venv")).expect("mkdir");
    std::os::unix::fs::symlink(s.path("home/.config/gh-like"), s.proj.join(".venv/bin"))
        .expect("link");
    let path = format!(
        "{}:{}:{}",
        s.proj.join(".venv/bin").display(),
        s.path("home/.local/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = format!(
        "cat '{}' '{}' '{}'; true",
        s.path("home/.local/share/mytool/lib/data.txt").display(),
        s.path("home/.config/gh-like/hosts.yml").display(),
        s.path("home/.local/share/keyrings-like/login").display(),
    );
    let o = s
        .command("build", &[], &["sh", "-c", &script])
        .env("PATH", &path)
        .output()
        .expect("running the sandbox");
    let out = stdout(&o);
    assert!(!out.contains(SECRET_SSH), "{out}");
    assert!(out.contains(ORDINARY), "{out} {}", stderr(&o));
}

/// rt19 F1, F2: credentials in the environment under names no pattern
/// caught (Bundler's per-host `BUNDLE_GITHUB__COM`, `SONAR_LOGIN`, an
/// ADO.NET connection string) are dropped, and a home configuration file
/// holding a token (`~/.gitconfig`) is hidden; one without stays readable.
#[test]
fn credential_variables_and_token_configs_are_kept_from_a_build() {
    if !require_sandbox() {
        return;
    }
    let s = Scratch::new();
    fs::write(
        s.home.join(".gitconfig"),
        "[user]\n\tname = A\n[github]\n\ttoken = ghp_SECRETGITCONFIG\n",
    )
    .expect("write");
    let o = s
        .command(
            "build",
            &[],
            &[
                "sh",
                "-c",
                "env; cat \"$HOME/.gitconfig\"; cat \"$HOME/.cargo/config.toml\"; true",
            ],
        )
        .env("BUNDLE_GITHUB__COM", "x-access-token:SECRETBUNDLE")
        .env("SONAR_LOGIN", "SECRETSONAR")
        .env("ConnectionStrings__Default", "Server=x;Password=SECRETCONN")
        .env("MY_SETTING", "ORDINARY-SETTING")
        .output()
        .expect("running the sandbox");
    let out = stdout(&o);
    for secret in [
        "SECRETBUNDLE",
        "SECRETSONAR",
        "SECRETCONN",
        "SECRETGITCONFIG",
    ] {
        assert!(!out.contains(secret), "{secret} reached the build: {out}");
    }
    assert!(out.contains("ORDINARY-SETTING"), "{out} {}", stderr(&o));
    assert!(out.contains("[build]"), "{out} {}", stderr(&o));
}
