use super::*;
use crate::fs::OsFs;
use shellgate_shell::paths;
use std::fs;
use std::os::unix::fs::symlink;

/// A scratch tree: `root` is canonical (no links above it).
fn scratch() -> (tempfile::TempDir, String) {
    let t = tempfile::tempdir().unwrap();
    let r = fs::canonicalize(t.path())
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    (t, r)
}

fn k(path: &str) -> Option<String> {
    kernel(&OsFs, path, true).path().map(str::to_string)
}

#[test]
fn links_are_followed_where_they_stand_and_dotdot_climbs_from_the_target() {
    let (_t, r) = scratch();
    // home/cache, home/.ssh/id_rsa, proj/dep -> home/cache
    fs::create_dir_all(format!("{r}/home/cache")).unwrap();
    fs::create_dir_all(format!("{r}/home/.ssh")).unwrap();
    fs::write(format!("{r}/home/.ssh/id_rsa"), "k").unwrap();
    fs::create_dir_all(format!("{r}/home/proj")).unwrap();
    symlink(format!("{r}/home/cache"), format!("{r}/home/proj/dep")).unwrap();
    let written = format!("{r}/home/proj/dep/../.ssh/id_rsa");
    assert_eq!(k(&written), Some(format!("{r}/home/.ssh/id_rsa")));
    // The lexical collapse would have said "inside the project".
    assert_eq!(
        paths::normalize(&written),
        format!("{r}/home/proj/.ssh/id_rsa")
    );
    // The OS agrees with the walk.
    assert_eq!(
        fs::canonicalize(&written).unwrap().to_str().unwrap(),
        format!("{r}/home/.ssh/id_rsa")
    );
    // Containment made twice: lexically inside, resolved outside.
    let proj = format!("{r}/home/proj");
    let lexical = paths::normalize(&written);
    assert!(!contained(&OsFs, &proj, &lexical, &written, true, false));
    assert!(contained(
        &OsFs,
        &proj,
        &format!("{proj}/src"),
        &format!("{proj}/src"),
        true,
        false
    ));
}

#[test]
fn relative_absolute_and_chained_targets() {
    let (_t, r) = scratch();
    fs::create_dir_all(format!("{r}/a/b/c")).unwrap();
    fs::write(format!("{r}/a/b/c/f"), "x").unwrap();
    symlink(format!("{r}/a/b"), format!("{r}/abs")).unwrap();
    symlink("a/b/c", format!("{r}/rel")).unwrap();
    symlink("rel", format!("{r}/chain")).unwrap();
    symlink("../..", format!("{r}/a/b/c/up")).unwrap();
    assert_eq!(k(&format!("{r}/abs/c/f")), Some(format!("{r}/a/b/c/f")));
    assert_eq!(k(&format!("{r}/rel/f")), Some(format!("{r}/a/b/c/f")));
    assert_eq!(k(&format!("{r}/chain/f")), Some(format!("{r}/a/b/c/f")));
    assert_eq!(k(&format!("{r}/a/b/c/up/b")), Some(format!("{r}/a/b")));
    assert_eq!(k(&format!("{r}/chain/../x")), Some(format!("{r}/a/b/x")));
    for p in [
        "abs",
        "rel/f",
        "chain/up/b/c",
        "a/./b/../b/c",
        "chain/..",
        "rel/up/..",
    ] {
        let path = format!("{r}/{p}");
        let os = fs::canonicalize(&path)
            .ok()
            .map(|p| p.to_str().unwrap().to_string());
        assert_eq!(k(&path), os, "{p}");
    }
}

#[test]
fn the_last_component_is_followed_only_when_asked() {
    let (_t, r) = scratch();
    fs::write(format!("{r}/real"), "x").unwrap();
    symlink(format!("{r}/real"), format!("{r}/name")).unwrap();
    assert_eq!(k(&format!("{r}/name")), Some(format!("{r}/real")));
    assert_eq!(
        kernel(&OsFs, &format!("{r}/name"), false).path(),
        Some(format!("{r}/name").as_str())
    );
    // A trailing slash always follows.
    fs::create_dir(format!("{r}/d")).unwrap();
    symlink(format!("{r}/d"), format!("{r}/dl")).unwrap();
    assert_eq!(
        kernel(&OsFs, &format!("{r}/dl/"), false).path(),
        Some(format!("{r}/d").as_str())
    );
}

#[test]
fn paths_that_do_not_exist_resolve_through_their_deepest_existing_ancestor() {
    let (_t, r) = scratch();
    fs::create_dir_all(format!("{r}/target")).unwrap();
    symlink(format!("{r}/target"), format!("{r}/link")).unwrap();
    assert_eq!(
        k(&format!("{r}/link/new/deeper/file")),
        Some(format!("{r}/target/new/deeper/file"))
    );
    assert_eq!(
        k(&format!("{r}/missing/../x")),
        Some(format!("{r}/x")),
        "after a missing component the rest is lexical"
    );
    // A file used as a directory: nothing below it exists.
    fs::write(format!("{r}/file"), "x").unwrap();
    assert_eq!(k(&format!("{r}/file/x")), Some(format!("{r}/file/x")));
}

#[test]
fn loops_and_unreadable_paths_are_unresolvable() {
    let (_t, r) = scratch();
    symlink("loop2", format!("{r}/loop1")).unwrap();
    symlink("loop1", format!("{r}/loop2")).unwrap();
    symlink("self", format!("{r}/self")).unwrap();
    assert_eq!(
        kernel(&OsFs, &format!("{r}/loop1"), true),
        Kernel::Unresolvable
    );
    assert_eq!(
        kernel(&OsFs, &format!("{r}/self/x"), true),
        Kernel::Unresolvable
    );
    assert!(!contained(
        &OsFs,
        &r,
        &format!("{r}/loop1"),
        &format!("{r}/loop1"),
        true,
        false
    ));
    // Not following the last link, the name itself is fine.
    assert_eq!(
        kernel(&OsFs, &format!("{r}/loop1"), false),
        Kernel::Path(format!("{r}/loop1"))
    );
    // Relative input.
    assert_eq!(kernel(&OsFs, "relative/x", true), Kernel::Unresolvable);
    // Permission errors (a fake file system: tests may run as root).
    struct Denied;
    impl Fs for Denied {
        fn lstat(&self, p: &str) -> io::Result<FileKind> {
            if p.starts_with("/locked") {
                Err(ErrorKind::PermissionDenied.into())
            } else {
                Ok(FileKind::Dir)
            }
        }
        fn stat(&self, p: &str) -> io::Result<FileKind> {
            self.lstat(p)
        }
        fn read_link(&self, _: &str) -> io::Result<PathBuf> {
            Err(ErrorKind::InvalidInput.into())
        }
        fn read_dir(&self, _: &str) -> io::Result<Vec<String>> {
            Err(ErrorKind::PermissionDenied.into())
        }
    }
    assert_eq!(kernel(&Denied, "/locked/x", true), Kernel::Unresolvable);
    assert_eq!(
        kernel(&Denied, "/open/x", true),
        Kernel::Path("/open/x".into())
    );
    assert!(!contained(
        &Denied,
        "/",
        "/locked/x",
        "/locked/x",
        true,
        false
    ));
    // An unlistable directory: the glob is not known.
    let e = expand(&Denied, "/open/*", false);
    assert!(!e.complete);
    assert_eq!(e.unlisted, vec!["/open".to_string()]);
}

#[test]
fn odd_paths_do_not_panic() {
    let (_t, r) = scratch();
    for p in [
        "/",
        "//",
        "/..",
        "/../..",
        "/./.",
        "",
        ".",
        "/a//b///c",
        "/\u{0}",
        "/é/ß/..",
        "/[/*/?",
    ] {
        let _ = kernel(&OsFs, p, true);
        let _ = kernel(&OsFs, p, false);
        let _ = expand(&OsFs, p, false);
        let _ = expand(&OsFs, p, true);
        let _ = contained(&OsFs, &r, p, p, true, true);
        let _ = static_dir(p);
        let _ = glob_then_dotdot(p);
        let _ = glob_may_inject_option(&OsFs, p, &r);
    }
    assert_eq!(kernel(&OsFs, "/", true), Kernel::Path("/".into()));
    assert_eq!(kernel(&OsFs, "/..", true), Kernel::Path("/".into()));
    // A link with an empty or weird target.
    symlink("/", format!("{r}/root")).unwrap();
    assert_eq!(k(&format!("{r}/root/..")), Some("/".into()));
}

#[test]
fn case_insensitive_containment() {
    assert!(within("/Users/U/Proj/x", "/users/u/proj", true));
    assert!(!within("/Users/U/Proj/x", "/users/u/proj", false));
    assert!(!within("/Users/U/Project", "/users/u/proj", true));
}

#[test]
fn glob_matching_follows_bash() {
    assert!(glob_match("*.rs", "main.rs", false));
    assert!(!glob_match("*", ".env", false));
    assert!(glob_match(".e*", ".env", false));
    assert!(glob_match(".[e]nv", ".env", false));
    assert!(!glob_match("[.]env", ".env", false));
    assert!(!glob_match("?env", ".env", false));
    assert!(glob_match("\\.env*", ".envrc", false));
    assert!(glob_match("[!a]b", "xb", false));
    assert!(!glob_match("[!a]b", "ab", false));
    assert!(glob_match("[a-c]x", "bx", false));
    assert!(glob_match("[[:digit:]]*", "1a", false));
    assert!(glob_match("*.RS", "main.rs", true));
    assert!(!glob_match("*.RS", "main.rs", false));
    assert!(glob_match("a\\*b", "a*b", false));
    assert!(!glob_match("a\\*b", "axb", false));
    assert!(glob_match("[", "[", false));
    assert!(glob_match("*a*b*c", "xxaybzc", false));
    assert!(!glob_match("*a*b*c", "xxaybz", false));
}

#[test]
fn pattern_intersection() {
    assert!(patterns_intersect("*", "credentials", true, false));
    assert!(!patterns_intersect("*", ".env", true, false));
    assert!(patterns_intersect("*", ".env", false, false));
    assert!(patterns_intersect(".e*", ".env", true, false));
    assert!(patterns_intersect(".[e]nv", ".env", true, false));
    assert!(!patterns_intersect("*.rs", "*.pem", true, false));
    assert!(patterns_intersect("*.p*", "*.pem", true, false));
    assert!(patterns_intersect("??????.pem", "*.pem", true, false));
    assert!(!patterns_intersect("[a-c]*", "-*", true, false));
    assert!(patterns_intersect("[!a]*", "-*", true, false));
    assert!(patterns_intersect("*", "-*", true, false));
    assert!(patterns_intersect("*.ENV", "*.env", true, true));
    assert!(!patterns_intersect("*.ENV", "*.env", true, false));
}

#[test]
fn globs_expand_as_bash_does() {
    let (_t, r) = scratch();
    fs::create_dir_all(format!("{r}/src/a")).unwrap();
    fs::create_dir_all(format!("{r}/src/b")).unwrap();
    fs::write(format!("{r}/src/a/x.rs"), "").unwrap();
    fs::write(format!("{r}/src/b/y.rs"), "").unwrap();
    fs::write(format!("{r}/src/.hidden.rs"), "").unwrap();
    fs::write(format!("{r}/src/top.rs"), "").unwrap();
    let names = |p: &str| {
        let mut v: Vec<String> = expand(&OsFs, &format!("{r}/{p}"), false)
            .matches
            .into_iter()
            .map(|(m, _)| m[r.len()..].to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(names("src/*.rs"), vec!["/src/top.rs"]);
    assert_eq!(names("src/*/*.rs"), vec!["/src/a/x.rs", "/src/b/y.rs"]);
    assert_eq!(names("src/.*.rs"), vec!["/src/.hidden.rs"]);
    assert_eq!(names("nosuch/*"), Vec::<String>::new());
    // Quoted metacharacters are literal.
    fs::write(format!("{r}/src/lit*"), "").unwrap();
    assert_eq!(names("src/lit\\*"), vec!["/src/lit*"]);
    // `**`: any depth (zsh, globstar), which covers bash's `*`.
    assert_eq!(
        names("src/**/*.rs"),
        vec!["/src/a/x.rs", "/src/b/y.rs", "/src/top.rs"]
    );
    assert!(expand(&OsFs, &format!("{r}/src/**"), false).complete);
    assert!(glob_then_dotdot("src/*/../../y"));
    assert!(glob_then_dotdot("/p/*/../x"));
    assert!(!glob_then_dotdot("../src/*.rs"));
    assert!(!glob_then_dotdot("src/\\*/../x"));
    assert_eq!(static_dir("/p/src/*.rs"), "/p/src");
    assert_eq!(static_dir("/*"), "/");
}

#[test]
fn globs_that_expand_to_options() {
    let (_t, r) = scratch();
    fs::write(format!("{r}/README.md"), "").unwrap();
    fs::write(format!("{r}/main.rs"), "").unwrap();
    assert!(!glob_may_inject_option(&OsFs, "*", &r));
    fs::write(format!("{r}/--pre=sh"), "").unwrap();
    assert!(glob_may_inject_option(&OsFs, "*", &r));
    assert!(!glob_may_inject_option(&OsFs, "*.rs", &r));
    assert!(!glob_may_inject_option(&OsFs, "src/*", &r));
    assert!(!glob_may_inject_option(&OsFs, "m*", &r));
    assert!(glob_may_inject_option(&OsFs, "[-m]*", &r));
    assert!(!glob_may_inject_option(&OsFs, "*", &format!("{r}/nosuch")));
}

#[test]
fn trees_that_lead_outside() {
    let (_t, r) = scratch();
    let p = format!("{r}/proj");
    fs::create_dir_all(format!("{p}/src/deep")).unwrap();
    fs::create_dir_all(format!("{r}/outside")).unwrap();
    symlink(format!("{p}/src/deep"), format!("{p}/inner")).unwrap();
    let roots = vec![p.clone()];
    assert!(tree_stays_within(&OsFs, &p, &roots, false));
    symlink(format!("{r}/outside"), format!("{p}/src/deep/out")).unwrap();
    assert!(!tree_stays_within(&OsFs, &p, &roots, false));
    assert!(!tree_stays_within(
        &OsFs,
        &format!("{p}/inner"),
        &roots,
        false
    ));
}

#[test]
fn the_cache_asks_each_question_once() {
    use std::cell::Cell;
    struct Counting(Cell<usize>);
    impl Fs for Counting {
        fn lstat(&self, p: &str) -> io::Result<FileKind> {
            self.0.set(self.0.get() + 1);
            OsFs.lstat(p)
        }
        fn stat(&self, p: &str) -> io::Result<FileKind> {
            self.0.set(self.0.get() + 1);
            OsFs.stat(p)
        }
        fn read_link(&self, p: &str) -> io::Result<PathBuf> {
            self.0.set(self.0.get() + 1);
            OsFs.read_link(p)
        }
        fn read_dir(&self, p: &str) -> io::Result<Vec<String>> {
            self.0.set(self.0.get() + 1);
            OsFs.read_dir(p)
        }
    }
    let (_t, r) = scratch();
    fs::create_dir_all(format!("{r}/a/b")).unwrap();
    let inner = Counting(Cell::new(0));
    let c = CachingFs::new(&inner);
    let _ = kernel(&c, &format!("{r}/a/b/x"), true);
    let first = inner.0.get();
    for _ in 0..10 {
        let _ = kernel(&c, &format!("{r}/a/b/x"), true);
        let _ = kernel(&c, &format!("{r}/a/b"), true);
        let _ = c.stat(&format!("{r}/a/b"));
    }
    assert_eq!(inner.0.get(), first, "answers are replayed");
    assert_eq!(
        c.lstat(&format!("{r}/nosuch")).unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        c.lstat(&format!("{r}/nosuch")).unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn the_commands_own_proc_view_is_not_the_gates() {
    // rt28b F1: the kernel resolves these in the command's process.
    for p in [
        "/proc/self/cwd",
        "/proc/self/cwd/x",
        "/dev/fd/3/settings.json",
        "/proc/self/fd/7/x",
    ] {
        assert_eq!(kernel(&OsFs, p, false), Kernel::ProcView, "{p}");
    }
    assert!(proc_view("/proc/1/task/1/cwd", false));
    assert!(!proc_view("/proc/123/fd/1", true));
    assert!(proc_view("/proc/123/fd/1/x", false));
    assert!(!proc_view("/proc/123/fd", true));
    assert!(!proc_view("/proc/123/fd/pipe:[7]", true));
    assert!(!proc_view("/proc/123/root", false));
    // Standard output stays what it was (`echo ok > /dev/stdout`).
    assert_ne!(kernel(&OsFs, "/dev/stdout", true), Kernel::ProcView);
}
