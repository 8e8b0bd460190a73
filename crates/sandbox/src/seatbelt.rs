//! The same rules as a macOS Seatbelt profile (`sandbox-exec -p PROFILE`).
//!
//! Seatbelt matches paths lexically, so protected names are denied whether
//! they exist or not (no placeholders), and project secrets are matched by a
//! regular expression below each project root (also for files created later).
//! Every allow carries its exceptions (`require-not`), so the result does not
//! depend on rule order. Generated and unit-tested on every platform; it can
//! only be run on macOS.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::data;
use crate::plan::Confinement;
use crate::SandboxError;

/// Mach services a command commonly needs (user/group lookup, logging,
/// notifications, certificate trust, network configuration). The keychain
/// (`com.apple.securityd`…) is deliberately absent.
const MACH_SERVICES: &[&str] = &[
    "com.apple.system.opendirectoryd.libinfo",
    "com.apple.system.opendirectoryd.membership",
    "com.apple.system.DirectoryService.libinfo_v1",
    "com.apple.system.logger",
    "com.apple.system.notification_center",
    "com.apple.logd",
    "com.apple.CoreServices.coreservicesd",
    "com.apple.trustd.agent",
    "com.apple.SystemConfiguration.configd",
    "com.apple.dnssd.service",
];

/// Quotes a string for SBPL (`"…"`). Paths with quotes, backslashes or
/// control characters are refused rather than escaped.
fn quote(p: &Path) -> Result<String, SandboxError> {
    let s = p
        .to_str()
        .ok_or_else(|| SandboxError::Plan(format!("{} is not UTF-8", p.display())))?;
    if s.chars().any(|c| c == '"' || c == '\\' || c.is_control()) {
        return Err(SandboxError::Plan(format!(
            "{s:?} cannot be written into a Seatbelt profile"
        )));
    }
    Ok(format!("\"{s}\""))
}

/// Escapes a path for a POSIX extended regular expression.
fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The secret-name patterns of `data::is_secret_file_name` as a regex
/// alternation over one path component.
fn secret_name_regex() -> String {
    let names = [
        r"\.env",
        r"\.env\.[^/]*",
        r"\.envrc",
        r"_?\.?netrc",
        r"\.npmrc",
        r"\.pypirc",
        r"\.git-credentials",
        r"credentials(\.json)?",
        r"\.vault-token",
        r"\.pgpass",
        r"\.my\.cnf",
        r"\.htpasswd",
        r"\.dev\.vars",
        r"\.s3cfg",
        r"id_(rsa|dsa|ecdsa|ed25519)",
        r"secrets\.[^/]*",
        r"secring\.[^/]*",
        r"service-account[^/]*\.json",
        r"[^/]+\.(pem|key|p12|pfx|kdbx|tfstate|tfvars|jks|keystore|ppk|gpg)",
        r"[^/]*\.tfstate\.[^/]*",
        r"\.ssh",
        r"\.aws",
        r"\.gnupg",
        r"\.azure",
    ];
    format!("({})", names.join("|"))
}

fn subpath(p: &Path) -> Result<String, SandboxError> {
    Ok(format!("(subpath {})", quote(p)?))
}

fn literal(p: &Path) -> Result<String, SandboxError> {
    Ok(format!("(literal {})", quote(p)?))
}

impl Confinement {
    /// Paths a command may not write although they lie in a writable root,
    /// lexically (whether they exist or not).
    fn lexical_write_denials(&self) -> Vec<String> {
        let mut v: Vec<String> = Vec::new();
        let mut push = |s: Result<String, SandboxError>| {
            if let Ok(s) = s {
                v.push(s);
            }
        };
        for root in &self.project_roots {
            let git = root.join(".git");
            // `.git` itself (rename, delete, or create as a gitfile)…
            push(literal(&git));
            // …and what runs code or redirects git inside it.
            for (name, _) in data::GITDIR_PROTECTED {
                push(subpath(&git.join(name)));
            }
            let modules = git.join("modules");
            if let Some(m) = modules.to_str() {
                push(Ok(format!(
                    "(regex #\"^{}/(.+/)?(config|hooks|info)(/.*)?$\")",
                    regex_escape(m)
                )));
            }
            for (name, _) in data::PROJECT_CONTROL {
                push(subpath(&root.join(name)));
            }
        }
        for hp in &self.hooks_paths {
            push(subpath(hp));
        }
        for rel in data::HOME_CONTROL {
            push(subpath(&self.home.join(rel)));
        }
        if !self.profile.writes_project() {
            push(subpath(&self.project));
        }
        v
    }

    /// Paths a command may not read, lexically.
    fn lexical_read_denials(&self) -> Result<Vec<String>, SandboxError> {
        let mut v = Vec::new();
        for rel in data::HOME_SECRETS {
            v.push(subpath(&self.home.join(rel))?);
        }
        for p in data::SYSTEM_SECRETS {
            v.push(literal(Path::new(p))?);
        }
        v.push(format!(
            "(regex #\"^{}/ssh_host_[^/]*_key$\")",
            regex_escape(data::SSH_HOST_KEY_DIR)
        ));
        // the gate's home, except the session directory
        match &self.session_dir {
            Some(s) if s.starts_with(&self.gate_home) => v.push(format!(
                "(require-all {} (require-not {}))",
                subpath(&self.gate_home)?,
                subpath(s)?
            )),
            _ => v.push(subpath(&self.gate_home)?),
        }
        let mut roots: Vec<PathBuf> = vec![self.project.clone()];
        roots.extend(self.project_roots.iter().cloned());
        roots.dedup();
        for r in roots {
            let rs = r
                .to_str()
                .ok_or_else(|| SandboxError::Plan(format!("{} is not UTF-8", r.display())))?;
            v.push(format!(
                "(regex #\"^{}/(.*/)?{}(/.*)?$\")",
                regex_escape(rs),
                secret_name_regex()
            ));
        }
        for h in &self.hidden {
            v.push(subpath(&h.path)?);
        }
        Ok(v)
    }

    /// The Seatbelt profile for `sandbox-exec -p`.
    pub fn seatbelt_profile(&self) -> Result<String, SandboxError> {
        let mut s = String::new();
        let w = &mut s;
        let _ = writeln!(w, "(version 1)");
        let _ = writeln!(w, "; shellgate sandbox, profile {}", self.profile);
        let _ = writeln!(w, "(deny default)");
        let _ = writeln!(w, "(allow process-exec)");
        let _ = writeln!(w, "(allow process-fork)");
        let _ = writeln!(w, "(allow process-info* (target same-sandbox))");
        let _ = writeln!(w, "(allow signal (target same-sandbox))");
        let _ = writeln!(w, "(allow sysctl-read)");
        let _ = writeln!(w, "(allow ipc-posix-sem)");
        let _ = writeln!(w, "(allow ipc-posix-shm)");
        let _ = writeln!(w, "(allow pseudo-tty)");
        let _ = writeln!(w, "(allow mach-lookup");
        for m in MACH_SERVICES {
            let _ = writeln!(w, "  (global-name \"{m}\")");
        }
        let _ = writeln!(w, ")");

        let _ = writeln!(w, "; reads: everywhere except secrets and the gate's home");
        let _ = writeln!(w, "(allow file-read*");
        let _ = writeln!(w, "  (require-all (subpath \"/\")");
        for d in self.lexical_read_denials()? {
            let _ = writeln!(w, "    (require-not {d})");
        }
        let _ = writeln!(w, "  ))");

        let _ = writeln!(w, "; writes: the writable roots minus the protected paths");
        let _ = writeln!(w, "(allow file-write*");
        let _ = writeln!(w, "  (require-all");
        let _ = writeln!(w, "    (require-any");
        for r in &self.writable {
            let _ = writeln!(w, "      {}", subpath(r)?);
        }
        let _ = writeln!(w, "    )");
        for d in self.lexical_write_denials() {
            let _ = writeln!(w, "    (require-not {d})");
        }
        let _ = writeln!(w, "  ))");
        let _ = writeln!(
            w,
            "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))"
        );
        let _ = writeln!(
            w,
            "(allow file-ioctl (literal \"/dev/tty\") (regex #\"^/dev/ttys[0-9]+$\"))"
        );

        if self.network {
            let _ = writeln!(w, "; network granted: IP only (unix sockets stay closed)");
            let _ = writeln!(w, "(allow system-socket)");
            let _ = writeln!(w, "(allow network-outbound (remote ip))");
            let _ = writeln!(w, "(allow network-inbound (local ip))");
            let _ = writeln!(w, "(allow network-bind (local ip))");
        } else {
            let _ = writeln!(w, "; no network");
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Profile;
    use std::fs;

    fn scratch() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(d.path()).unwrap();
        for sub in [
            "home/.ssh",
            "home/.shellgate/sessions/s1",
            "proj/.git/hooks",
            "tmp",
        ] {
            fs::create_dir_all(root.join(sub)).unwrap();
        }
        fs::write(
            root.join("proj/.git/config"),
            "[core]\n\thooksPath = tools/hooks\n",
        )
        .unwrap();
        fs::write(root.join("proj/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        (d, root)
    }

    fn profile_text(root: &Path, profile: Profile, network: bool) -> String {
        Confinement::builder(profile, root.join("proj"))
            .home(root.join("home"))
            .gate_home(root.join("home/.shellgate"))
            .session("s1")
            .temp_dir(root.join("tmp"))
            .network(network)
            .build()
            .unwrap()
            .seatbelt_profile()
            .unwrap()
    }

    fn balanced(s: &str) -> bool {
        let mut depth = 0i64;
        let mut in_str = false;
        for c in s.chars() {
            match c {
                '"' => in_str = !in_str,
                '(' if !in_str => depth += 1,
                ')' if !in_str => {
                    depth -= 1;
                    if depth < 0 {
                        return false;
                    }
                }
                _ => {}
            }
        }
        depth == 0 && !in_str
    }

    #[test]
    fn edit_profile_rules() {
        let (_d, root) = scratch();
        let t = profile_text(&root, Profile::Edit, false);
        let proj = root.join("proj");
        let p = |s: &str| proj.join(s).display().to_string();
        assert!(t.starts_with("(version 1)\n"));
        assert!(t.contains("(deny default)"));
        assert!(balanced(&t), "{t}");
        // the project is writable, its protected paths are not
        assert!(t.contains(&format!("(subpath \"{}\")", proj.display())));
        for protected in [
            ".git/hooks",
            ".git/config",
            ".git/info",
            ".claude",
            ".codex",
            ".gemini",
            ".mcp.json",
            "tools/hooks",
        ] {
            assert!(
                t.contains(&format!("(require-not (subpath \"{}\"))", p(protected))),
                "{protected} missing:\n{t}"
            );
        }
        assert!(t.contains(&format!("(require-not (literal \"{}\"))", p(".git"))));
        // secrets unreadable, the session readable inside the gate's home
        assert!(t.contains(&format!(
            "(require-not (subpath \"{}\"))",
            root.join("home/.ssh").display()
        )));
        assert!(t.contains(&format!(
            "(require-not (require-all (subpath \"{}\") (require-not (subpath \"{}\"))))",
            root.join("home/.shellgate").display(),
            root.join("home/.shellgate/sessions/s1").display()
        )));
        assert!(t.contains(r"(\.env|\.env\.[^/]*|"));
        // no network
        assert!(!t.contains("network-outbound"));
        assert!(!t.contains("com.apple.securityd"));
    }

    #[test]
    fn read_profile_denies_project_writes_and_build_network() {
        let (_d, root) = scratch();
        let t = profile_text(&root, Profile::Read, false);
        let proj = root.join("proj").display().to_string();
        assert!(t.contains(&format!("(require-not (subpath \"{proj}\"))")));
        assert!(!t.contains(&format!("      (subpath \"{proj}\")")));
        let b = profile_text(&root, Profile::Build, true);
        assert!(b.contains("(allow network-outbound (remote ip))"));
        assert!(balanced(&b));
    }

    #[test]
    fn quoting_refuses_what_it_cannot_write() {
        assert!(quote(Path::new("/a\"b")).is_err());
        assert!(quote(Path::new("/a\\b")).is_err());
        assert_eq!(quote(Path::new("/a b")).unwrap(), "\"/a b\"");
        assert_eq!(regex_escape("/x.y(z)"), r"/x\.y\(z\)");
    }
}
