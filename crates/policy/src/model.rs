//! Small vocabulary types shared by every layer (SPEC §1).

use serde::{Deserialize, Serialize};

/// Trust order: `Personal` > `Team` > `Public`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Audience {
    Public,
    Team,
    Personal,
}

impl Audience {
    pub const ALL: [Audience; 3] = [Audience::Personal, Audience::Team, Audience::Public];

    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Personal => "personal",
            Audience::Team => "team",
            Audience::Public => "public",
        }
    }

    /// Strict parse (CLI flags): `None` for anything but the three words.
    pub fn parse(s: &str) -> Option<Audience> {
        match s {
            "personal" => Some(Audience::Personal),
            "team" => Some(Audience::Team),
            "public" => Some(Audience::Public),
            _ => None,
        }
    }

    /// Lenient parse for stored or configured values: unknown ⇒ `Public`
    /// (fail closed, SPEC §1).
    pub fn parse_or_public(s: Option<&str>) -> Audience {
        s.and_then(Audience::parse).unwrap_or(Audience::Public)
    }
}

/// Whether a human can answer a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Interactive,
    Headless,
    Reminder,
    Webhook,
}

impl Channel {
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Interactive => "interactive",
            Channel::Headless => "headless",
            Channel::Reminder => "reminder",
            Channel::Webhook => "webhook",
        }
    }

    pub fn parse(s: &str) -> Option<Channel> {
        match s {
            "interactive" => Some(Channel::Interactive),
            "headless" => Some(Channel::Headless),
            "reminder" => Some(Channel::Reminder),
            "webhook" => Some(Channel::Webhook),
            _ => None,
        }
    }

    pub fn is_interactive(self) -> bool {
        self == Channel::Interactive
    }
}

/// Which operating system's semantics apply (safe-verb list, case rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Os {
    Linux,
    Macos,
    Windows,
}

impl Os {
    pub fn host() -> Os {
        if cfg!(target_os = "macos") {
            Os::Macos
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Os::Linux => "linux",
            Os::Macos => "macos",
            Os::Windows => "windows",
        }
    }

    pub fn parse(s: &str) -> Option<Os> {
        match s {
            "linux" => Some(Os::Linux),
            "macos" => Some(Os::Macos),
            "windows" => Some(Os::Windows),
            _ => None,
        }
    }

    /// Verb and directory comparisons are case-insensitive on Windows.
    pub fn case_insensitive(self) -> bool {
        self == Os::Windows
    }
}

/// Tool name of the shell tool.
pub const SHELL_TOOL: &str = "shell_execute";

/// File tools (SPEC §1).
pub const FILE_TOOLS: [&str; 5] = [
    "file_read",
    "file_write",
    "file_edit",
    "file_list",
    "attach_file",
];

/// Whether a file tool writes (for file modes and protected paths).
pub fn file_tool_writes(tool: &str) -> bool {
    matches!(tool, "file_write" | "file_edit")
}
