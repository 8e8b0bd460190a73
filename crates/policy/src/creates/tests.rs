use super::*;
use crate::fs::OsFs;
use shellgate_shell::analyze::{analyze, Env};
use std::io::Write;

fn tar_bytes(names: &[(&str, bool)]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (n, link) in names {
        let mut h = tar::Header::new_gnu();
        h.set_size(0);
        h.set_mode(0o644);
        if *link {
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_link_name("elsewhere").unwrap();
        }
        h.set_cksum();
        b.append_data(&mut h, n, std::io::empty()).unwrap();
    }
    b.into_inner().unwrap()
}

/// A zip with stored (empty) entries, as the format specifies it.
fn zip_bytes(names: &[(&str, bool)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (n, link) in names {
        let offset = out.len() as u32;
        out.extend_from_slice(b"PK\x03\x04");
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        out.extend_from_slice(&[0; 12]); // crc, sizes
        out.extend_from_slice(&(n.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(n.as_bytes());
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&[20, 3]); // made by: unix
        central.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&(n.len() as u16).to_le_bytes());
        central.extend_from_slice(&[0; 8]); // extra, comment, disk, internal
        let mode: u32 = if *link { 0o120777 } else { 0o100644 };
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(n.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(names.len() as u16).to_le_bytes());
    out.extend_from_slice(&(names.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}

/// A cpio archive in the "newc" format.
fn cpio_bytes(names: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    let entry = |out: &mut Vec<u8>, name: &str, mode: u32| {
        let namesize = name.len() + 1;
        let fields = [0u32, mode, 0, 0, 1, 0, 0, 0, 0, 0, 0, namesize as u32, 0];
        out.extend_from_slice(b"070701");
        for f in fields {
            out.extend_from_slice(format!("{f:08x}").as_bytes());
        }
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        while !out.len().is_multiple_of(4) {
            out.push(0);
        }
    };
    for n in names {
        entry(&mut out, n, 0o100644);
    }
    entry(&mut out, "TRAILER!!!", 0);
    out
}

fn names(m: &[Member]) -> Vec<&str> {
    m.iter().map(|m| m.name.as_str()).collect()
}

#[test]
fn archive_member_lists() {
    let tar = tar_bytes(&[
        ("a/b.txt", false),
        (".claude/settings.json", false),
        ("l", true),
    ]);
    let m = archive_members(&tar).unwrap();
    assert_eq!(names(&m), ["a/b.txt", ".claude/settings.json", "l"]);
    assert!(m[2].link && !m[0].link);
    // A long name (GNU extension) is read whole.
    let long = format!("{}/.claude/settings.json", "d".repeat(120));
    let m = archive_members(&tar_bytes(&[(&long, false)])).unwrap();
    assert_eq!(names(&m), [long.as_str()]);
    // gzip-compressed.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&tar).unwrap();
    let m = archive_members(&gz.finish().unwrap()).unwrap();
    assert_eq!(names(&m)[1], ".claude/settings.json");
    // zip, with a link member.
    let m = archive_members(&zip_bytes(&[
        ("x/y", false),
        (".mcp.json", false),
        ("ln", true),
    ]))
    .unwrap();
    assert_eq!(names(&m), ["x/y", ".mcp.json", "ln"]);
    assert!(m[2].link);
    // cpio.
    let m = archive_members(&cpio_bytes(&["./a", "/abs/.claude/settings.json"])).unwrap();
    assert_eq!(names(&m), ["./a", "/abs/.claude/settings.json"]);
    // Garbage and truncations are errors, never panics.
    for bad in [
        &b""[..],
        b"PK\x03\x04",
        b"PK\x05\x06",
        b"070701",
        b"0707010000",
        b"\x1f\x8b\x08",
        b"random bytes that are no archive",
    ] {
        assert!(archive_members(bad).is_err(), "{bad:?}");
    }
    let mut cut = zip_bytes(&[("abc", false)]);
    cut.truncate(cut.len() - 3);
    assert!(archive_members(&cut).is_err());
    let mut cut = cpio_bytes(&["abc"]);
    cut.truncate(40);
    assert!(archive_members(&cut).is_err());
}

#[test]
fn real_archive_files_are_read_bounded() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().to_str().unwrap();
    std::fs::write(format!("{d}/a.tar"), tar_bytes(&[("x", false)])).unwrap();
    assert_eq!(
        names(&list_archive(&OsFs, &format!("{d}/a.tar")).unwrap()),
        ["x"]
    );
    assert!(list_archive(&OsFs, &format!("{d}/missing.tar")).is_err());
    // A directory or a fifo is not read.
    assert!(list_archive(&OsFs, d).is_err());
}

#[test]
fn trees_are_listed() {
    let t = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(t.path()).unwrap();
    let d = d.to_str().unwrap();
    std::fs::create_dir_all(format!("{d}/.claude")).unwrap();
    std::fs::write(format!("{d}/.claude/settings.json"), "{}").unwrap();
    std::fs::write(format!("{d}/top"), "").unwrap();
    let mut l = list_tree(&OsFs, d).unwrap();
    l.sort();
    assert_eq!(l, [".claude", ".claude/settings.json", "top"]);
    assert!(list_tree(&OsFs, &format!("{d}/nosuch")).is_err());
}

#[test]
fn patches_name_their_files() {
    let text = "diff --git a/.claude/settings.json b/.claude/settings.json\n\
                new file mode 100644\n--- /dev/null\n+++ b/.claude/settings.json\n@@ -0,0 +1 @@\n+{}\n\
                diff --git a/x b/y\nrename from x\nrename to y\n\
                --- old.c\t2020-01-01\n+++ new.c\t2020-01-01\n";
    let p = patch_paths_of(text);
    for want in [
        "a/.claude/settings.json",
        "b/.claude/settings.json",
        "y",
        "new.c",
        "old.c",
    ] {
        assert!(p.iter().any(|x| x == want), "{want} in {p:?}");
    }
    assert!(!p.iter().any(|x| x == "/dev/null"));
}

#[test]
fn git_index_paths() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().to_str().unwrap();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(d)
            .output()
            .unwrap();
        assert!(ok.status.success(), "{ok:?}");
    };
    git(&["init", "-q"]);
    std::fs::create_dir_all(format!("{d}/.claude")).unwrap();
    std::fs::create_dir_all(format!("{d}/src/deep")).unwrap();
    std::fs::write(format!("{d}/.claude/settings.json"), "{}").unwrap();
    std::fs::write(format!("{d}/src/deep/a.rs"), "").unwrap();
    std::fs::write(format!("{d}/src/b.rs"), "").unwrap();
    git(&["add", "-A"]);
    let want = [".claude/settings.json", "src/b.rs", "src/deep/a.rs"];
    assert_eq!(
        index_paths(&OsFs, &format!("{d}/.git/index")).unwrap(),
        want
    );
    git(&["update-index", "--index-version", "4"]);
    assert_eq!(
        index_paths(&OsFs, &format!("{d}/.git/index")).unwrap(),
        want
    );
    git(&["update-index", "--index-version", "3"]);
    assert_eq!(
        index_paths(&OsFs, &format!("{d}/.git/index")).unwrap(),
        want
    );
    assert!(index_paths_of(b"DIRC\0\0\0\x02\0\0\0\x05").is_err());
    assert!(index_paths_of(b"nope").is_err());
}

fn plan_of(cmd: &str, cwd: &str) -> Vec<Creation> {
    let a = analyze(
        cmd,
        Some(cwd),
        &Env {
            home: "/h".into(),
            ..Default::default()
        },
    );
    a.invocations.iter().flat_map(|i| plan(&OsFs, i)).collect()
}

#[test]
fn argv_plans() {
    let t = tempfile::tempdir().unwrap();
    let p = std::fs::canonicalize(t.path()).unwrap();
    let p = p.to_str().unwrap().to_string();
    std::fs::create_dir_all(format!("{p}/tpl")).unwrap();
    std::fs::create_dir_all(format!("{p}/dest")).unwrap();
    let c = |source: Option<&str>, target: &str, kind| Creation {
        source: source.map(|s| format!("{p}/{s}")),
        target: format!("{p}/{target}"),
        kind,
        text: None,
    };
    assert_eq!(
        plan_of("ln -s cfg .claude", &p),
        [c(Some("cfg"), ".claude", CreateKind::Name)]
    );
    assert_eq!(
        plan_of("cp -a tpl/.claude .", &p),
        [
            c(Some("tpl/.claude"), ".claude", CreateKind::Name),
            c(Some("tpl/.claude"), ".claude", CreateKind::Tree)
        ]
    );
    assert_eq!(
        plan_of("cp -r tpl/. .", &p)[1],
        Creation {
            source: Some(format!("{p}/tpl/.")),
            target: p.clone(),
            kind: CreateKind::Tree,
            text: None,
        }
    );
    assert_eq!(
        plan_of("rsync -a tpl/ dest", &p)[1],
        c(Some("tpl/"), "dest", CreateKind::Tree)
    );
    assert_eq!(
        plan_of("rsync -a tpl dest", &p)[1],
        c(Some("tpl"), "dest/tpl", CreateKind::Tree)
    );
    assert!(plan_of("rsync -a tpl host:/x", &p).is_empty());
    assert_eq!(
        plan_of("tar -xzf a.tgz -C dest", &p),
        [Creation {
            source: Some(format!("{p}/a.tgz")),
            target: format!("{p}/dest"),
            kind: CreateKind::Archive,
            text: None,
        }]
    );
    assert_eq!(
        plan_of("tar xzf a.tgz", &p),
        [c(Some("a.tgz"), "", CreateKind::Archive)].map(|mut x| {
            x.target = p.clone();
            x
        })
    );
    assert_eq!(plan_of("tar -xf a.tar -C /abs", &p)[0].source, None);
    assert_eq!(plan_of("tar -xf a.tar -C x/../y", &p)[0].source, None);
    assert!(plan_of("tar czf a.tgz src", &p).is_empty());
    assert!(plan_of("tar tzf a.tgz", &p).is_empty());
    assert_eq!(
        plan_of("unzip -o a.zip -d dest", &p),
        [c(Some("a.zip"), "dest", CreateKind::Archive)]
    );
    assert!(plan_of("unzip -l a.zip", &p).is_empty());
    assert_eq!(
        plan_of("cpio -idm < a.cpio", &p),
        [Creation {
            source: Some(format!("{p}/a.cpio")),
            target: p.clone(),
            kind: CreateKind::Archive,
            text: None,
        }]
    );
    assert_eq!(
        plan_of("git apply fix.patch", &p),
        [Creation {
            source: Some(format!("{p}/fix.patch")),
            target: p.clone(),
            kind: CreateKind::Patch,
            text: None,
        }]
    );
    assert!(plan_of("git apply --check fix.patch", &p).is_empty());
    let inline = plan_of("patch -p1 <<'EOF'\n+++ b/.claude/settings.json\nEOF", &p);
    assert_eq!(inline[0].kind, CreateKind::Patch);
    assert_eq!(
        inline[0].text.as_deref(),
        Some("+++ b/.claude/settings.json\n")
    );
    assert_eq!(
        plan_of("patch -p1 < fix.patch", &p),
        [Creation {
            source: Some(format!("{p}/fix.patch")),
            target: p.clone(),
            kind: CreateKind::Patch,
            text: None,
        }]
    );
    let co = plan_of("git checkout HEAD~1 -- .claude/settings.json", &p);
    assert_eq!(co[0], c(None, ".claude/settings.json", CreateKind::Name));
    assert_eq!(co[1].kind, CreateKind::GitIndex);
    assert_eq!(
        plan_of("gunzip settings.json.gz", &p),
        [c(None, "settings.json", CreateKind::Name)]
    );
    assert!(plan_of("gzip -dc a.gz", &p).is_empty());
    assert!(plan_of("cat x", &p).is_empty());
    // Odd argv never panics.
    for cmd in [
        "cp",
        "mv -t",
        "tar -x -f",
        "unzip",
        "7z x",
        "ln",
        "rsync",
        "patch -i",
        "git",
    ] {
        let _ = plan_of(cmd, &p);
    }
}

/// A source with an expansion is not read through its static remainder:
/// `$X/` is not `/` (listing the whole file system stalled the call for the
/// listing's time limit), `` `dirname $0`/tpl `` is not `/tpl`.
#[test]
fn dynamic_sources_carry_no_source() {
    let t = tempfile::tempdir().unwrap();
    let p = std::fs::canonicalize(t.path()).unwrap();
    let p = p.to_str().unwrap().to_string();
    for cmd in [
        "mv $X/ dest",
        "cp -r $X/ dest",
        "cp -a \"$SRC\" .",
        "rsync -a `dirname $0`/ dest",
    ] {
        let plans = plan_of(cmd, &p);
        assert!(!plans.is_empty(), "{cmd}: no plan");
        assert!(plans.iter().all(|c| c.source.is_none()), "{cmd}: {plans:?}");
    }
    // A static source next to a dynamic one keeps its own.
    let plans = plan_of("cp -r tpl $X/ dest", &p);
    assert!(plans
        .iter()
        .any(|c| c.source.as_deref() == Some(format!("{p}/tpl").as_str())));
}

/// `cp --parents`, `rsync -R` and `cpio -p` recreate paths the way the
/// programs do (rt12 S7/S8, measured with coreutils 9.1, rsync 3.2/3.5 and
/// cpio 2.13).
#[test]
fn relative_path_copies_plan_the_spelled_path() {
    let t = tempfile::tempdir().unwrap();
    let p = std::fs::canonicalize(t.path()).unwrap();
    let p = p.to_str().unwrap().to_string();
    std::fs::create_dir_all(format!("{p}/tpl/.git/hooks")).unwrap();
    let targets = |cmd: &str, cwd: &str| -> Vec<(String, CreateKind)> {
        plan_of(cmd, cwd)
            .into_iter()
            .map(|c| (c.target, c.kind))
            .collect()
    };
    let has = |v: &[(String, CreateKind)], t: &str, k: CreateKind| {
        v.iter().any(|(x, y)| x == &format!("{p}/{t}") && *y == k)
    };
    let tpl = format!("{p}/tpl");
    let v = targets("cp --parents .git/hooks/pre-commit ..", &tpl);
    assert!(has(&v, ".git/hooks/pre-commit", CreateKind::Name), "{v:?}");
    let v = targets("cp -r --pa -t .. .git/hooks", &tpl);
    assert!(has(&v, ".git/hooks", CreateKind::Tree), "{v:?}");
    let v = targets("cp --parents ../x out", &p);
    assert!(has(&v, "x", CreateKind::Name), "{v:?}");
    let v = targets("rsync -aR tpl/./.git/ .", &p);
    assert!(has(&v, ".git", CreateKind::Name), "{v:?}");
    assert!(has(&v, ".git", CreateKind::Tree), "{v:?}");
    let v = targets("rsync -R tpl/./a/./.git/hooks/x d", &p);
    assert!(has(&v, "d/a/.git/hooks/x", CreateKind::Name), "{v:?}");
    let v = targets("rsync -R .git/hooks/pre-commit ..", &tpl);
    assert!(has(&v, ".git/hooks/pre-commit", CreateKind::Name), "{v:?}");
    // Without -R only the plain reading.
    let v = targets("rsync -a tpl/./.git/ out", &p);
    assert!(!has(&v, "out/.git", CreateKind::Name), "{v:?}");
    let v = plan_of("cpio -pdu ..", &tpl);
    assert!(v
        .iter()
        .any(|c| c.target == p && c.kind == CreateKind::Tree && c.source.is_none()));
    assert!(plan_of("cpio -o", &tpl).is_empty());
}
