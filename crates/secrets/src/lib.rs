//! What names or carries a credential in an environment: variable names
//! (`GITHUB_TOKEN`, `MYSQL_PWD`, `REDIS_URL`) and values (`ghp_…`, a URL
//! with a password). One vocabulary for the gate, which asks before a
//! command prints such a variable, and for the sandbox, which removes them
//! from a confined command's environment: a name the gate treats as a
//! credential never reaches sandboxed code. Pure, no I/O.

/// Whether an environment variable's name marks a credential: `*TOKEN*`,
/// `*SECRET*`, `*PASSW*`, `*AUTH*` (not `*AUTHOR*`), private, API and
/// access keys, JWTs, cookies, connection strings, and names ending in
/// `_KEY`, `_PAT`, `_SK`, `_PASS` or `_PWD` (`MYSQL_PWD`), with [`more`].
/// Names that only configure a tool (`SSH_AUTH_SOCK`, `GOPRIVATE`) are not.
/// The gate asks before a command expands one of these (rt6: printed by a
/// sandboxed build were `NPM_CONFIG__AUTH`, `DOCKER_AUTH_CONFIG`,
/// `MYSQL_PWD`), and the sandbox drops them.
pub fn credential_name(name: &str) -> bool {
    let up = name.to_ascii_uppercase();
    const PARTS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSW",
        "PASSPHRASE",
        "PRIVATE",
        "API_KEY",
        "APIKEY",
        "ACCESS_KEY",
        "SESSION_KEY",
        "CREDENTIAL",
        "DATABASE_URL",
        "_DSN",
        "WEBHOOK",
        "CONNECTION_STRING",
        "JWT",
        "COOKIE",
    ];
    const KEEP: &[&str] = &["SSH_AUTH_SOCK", "GOPRIVATE", "GONOSUMDB", "GONOPROXY"];
    if KEEP.contains(&up.as_str()) {
        return false;
    }
    PARTS.iter().any(|p| up.contains(p))
        || (up.contains("AUTH") && !up.contains("AUTHOR"))
        || ["_KEY", "_PAT", "_SK", "_PASS", "_PWD"]
            .iter()
            .any(|s| up.ends_with(s))
        || more(&up)
}

/// More credential names (rt17 F3): a
/// password by suffix (`SSHPASS`), a CLI's session (`BW_SESSION`,
/// `OP_SESSION_my`; not `XDG_SESSION_TYPE`), a service's connection string
/// (`REDIS_URL`, `MONGODB_URI`), the bare `KEY`/`PASS`/`PW`.
fn more(up: &str) -> bool {
    const SERVICES: &[&str] = &[
        "REDIS",
        "MONGO",
        "AMQP",
        "RABBIT",
        "BROKER",
        "POSTGRES",
        "MYSQL",
        "MARIADB",
        "ELASTIC",
        "DB",
        "DATABASE",
        "SQL",
        "KAFKA",
        "NATS",
        "MEMCACHE",
        "CLICKHOUSE",
        "CASSANDRA",
    ];
    let desktop = up.starts_with("XDG_SESSION") || up.starts_with("DESKTOP_SESSION");
    up.ends_with("PASS")
        || (up.contains("SESSION") && !desktop && !up.starts_with("DBUS_SESSION"))
        || ((up.ends_with("_URL") || up.ends_with("_URI") || up.ends_with("_URIS"))
            && SERVICES.iter().any(|s| up.contains(s)))
        || matches!(up, "KEY" | "PASS" | "PW")
        // rt19 F1: what the gate's allow-list already asks about, printed
        // by sandboxed project code — `BUNDLE_GITHUB__COM` (Bundler's
        // per-host credentials), `SONAR_LOGIN`, `LDAP_BIND_PW`,
        // `ORG_GRADLE_PROJECT_signingInMemoryKey`, `ConnectionStrings__Default`,
        // `AzureWebJobsStorage`, `PIP_INDEX_URL`, `MNEMONIC`.
        || (up.starts_with("BUNDLE_") && up.contains("__"))
        || up.starts_with("ORG_GRADLE_PROJECT_")
        || up.contains("CONNECTIONSTRING")
        || up.contains("LOGIN")
        || up.contains("MNEMONIC")
        || up.contains("SASL")
        || up.contains("JAAS")
        || up.ends_with("KEY")
        || up.ends_with("_PW")
        || up.ends_with("STORAGE")
        || up.ends_with("INDEX_URL")
        || matches!(up, "DSN" | "GIT_CONFIG_PARAMETERS" | "HTTPS_PROXY" | "HTTP_PROXY" | "ALL_PROXY")
}

/// Whether a variable's value carries a credential whatever its name: a URL
/// with a password in it (`HTTPS_PROXY=http://u:pw@proxy`,
/// `REDIS_URL=redis://:pw@host`).
pub fn credential_value(value: &str) -> bool {
    // Well-known token shapes and connection strings with a password
    // (rt19 F1: `Password=…` in an ADO.NET string, a PEM block).
    const TOKENS: &[&str] = &[
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xapp-",
        "sk-",
        "sk_live_",
        "rk_live_",
        "AKIA",
        "ASIA",
        "AIza",
        "npm_",
        "pypi-",
        "-----BEGIN",
        "x-access-token:",
    ];
    if TOKENS.iter().any(|t| value.contains(t)) {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    if ["password=", "pwd=", "accountkey=", "sharedaccesskey="]
        .iter()
        .any(|k| lower.contains(k))
    {
        return true;
    }
    let mut rest = value;
    while let Some(i) = rest.find("://") {
        rest = &rest[i + 3..];
        let authority = rest.split(['/', '?', '#', ' ', ',']).next().unwrap_or("");
        if let Some(at) = authority.rfind('@') {
            if authority[..at].contains(':') {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{credential_name, credential_value};

    #[test]
    fn names_and_values() {
        for n in [
            "GITHUB_TOKEN",
            "DB_PASS",
            "MYSQL_PWD",
            "NPM_CONFIG__AUTH",
            "DOCKER_AUTH_CONFIG",
            "CI_JOB_JWT",
            "SESSION_COOKIE",
            "GPG_PASSPHRASE",
            "OPENAI_API_KEY",
            "SSHPASS",
            "BW_SESSION",
            "OP_SESSION_my",
            "REDIS_URL",
            "MONGODB_URI",
            "SQLALCHEMY_DATABASE_URI",
            "CELERY_BROKER_URL",
            "KEY",
            "BUNDLE_GITHUB__COM",
            "SONAR_LOGIN",
            "LDAP_BIND_PW",
            "ORG_GRADLE_PROJECT_signingInMemoryKey",
            "ConnectionStrings__Default",
            "AzureWebJobsStorage",
            "PIP_INDEX_URL",
        ] {
            assert!(credential_name(n), "{n}");
        }
        for n in [
            "PATH",
            "PWD",
            "OLDPWD",
            "GIT_AUTHOR_NAME",
            "SSH_AUTH_SOCK",
            "GOPRIVATE",
            "HOME",
            "XAUTHORITY",
            "XDG_SESSION_TYPE",
            "DBUS_SESSION_BUS_ADDRESS",
            "BASE_URL",
            "API_URL",
        ] {
            assert!(!credential_name(n), "{n}");
        }
        assert!(credential_value("http://u:pw@proxy:3128"));
        assert!(credential_value("redis://:pw@h:6379/0"));
        assert!(credential_value("Server=db;User Id=sa;Password=x;"));
        assert!(credential_value("ghp_abc"));
        assert!(!credential_value("/usr/local/bin:/usr/bin"));
        assert!(!credential_value("https://proxy.example:3128"));
        assert!(!credential_value("git@github.com:o/r.git"));
        assert!(!credential_value("https://u@host/x:y@z"));
    }
}

/// Directories secret whole wherever they lie, as path segments (lower
/// case): a path with these consecutive segments is secret.
pub const SECRET_DIRS: &[&[&str]] = &[
    &[".ssh"],
    &[".aws"],
    &[".gnupg"],
    &[".azure"],
    &[".config", "gcloud"],
    &[".oci"],
    &[".local", "share", "keyrings"],
];

/// Files secret by their last segments (lower case; the last one may end
/// in `*`): `.kube/config`, `.docker/config.json`, `.cargo/credentials*`.
pub const SECRET_SUFFIXES: &[&[&str]] = &[
    &[".kube", "config"],
    &[".docker", "config.json"],
    &[".config", "gh", "hosts.yml"],
    &[".terraform.d", "credentials.tfrc.json"],
    &[".cargo", "credentials*"],
    &[".vercel", "auth.json"],
    &[".composer", "auth.json"],
    &[".config", "composer", "auth.json"],
    &[".config", "rclone", "rclone.conf"],
];

/// Whether a path's segments (lower case, in order) name a secret by where
/// it lies: inside one of [`SECRET_DIRS`], or ending in one of
/// [`SECRET_SUFFIXES`]. The gate asks before a command reads such a path,
/// and the sandbox hides one inside the project (rt26a F4: a sandboxed
/// script printed the project's `.kube/config` and `.cargo/credentials.toml`).
pub fn secret_by_segments(segs: &[&str]) -> bool {
    if SECRET_DIRS
        .iter()
        .any(|dir| segs.windows(dir.len()).any(|w| w == *dir))
    {
        return true;
    }
    SECRET_SUFFIXES.iter().any(|suffix| {
        let Some(start) = segs.len().checked_sub(suffix.len()) else {
            return false;
        };
        let tail = &segs[start..];
        let n = suffix.len() - 1;
        let last = suffix[n];
        tail[..n] == suffix[..n]
            && match last.strip_suffix('*') {
                Some(prefix) => tail[n].starts_with(prefix),
                None => tail[n] == last,
            }
    })
}

#[cfg(test)]
mod segment_tests {
    use super::secret_by_segments as s;

    #[test]
    fn by_place() {
        assert!(s(&["proj", ".kube", "config"]));
        assert!(s(&[".cargo", "credentials.toml"]));
        assert!(s(&["a", ".ssh", "known_hosts"]));
        assert!(s(&[".config", "gh", "hosts.yml"]));
        assert!(!s(&["src", "config"]));
        assert!(!s(&[".cargo", "config.toml"]));
        assert!(!s(&[]));
    }
}
