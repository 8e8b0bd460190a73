//! `shellgate session`: sessions and provenance (SPEC §10).

use anyhow::{bail, Result};
use clap::Subcommand;
use shellgate_policy::fs::OsFs;
use shellgate_policy::{Audience, Channel};
use shellgate_shell::paths;
use shellgate_store::state::{is_valid_session_id, SessionRecord};

use crate::cli::{AudienceArg, ChannelArg};
use crate::edge::{self, Edge, Homes, UsageError};

#[derive(Subcommand, Debug)]
pub enum SessionCmd {
    /// Create a session and print its id.
    #[command(after_help = "\
Example:
  shellgate session create --id s1 --audience personal --project-dir ~/repos/app
  shellgate check --session s1 -- 'git log --oneline'")]
    Create {
        /// Session id: letters, digits, '.', '_' or '-' (default: a new generated id).
        #[arg(long)]
        id: Option<String>,
        /// Who is in the conversation (default: the parent's audience, else public).
        #[arg(long, value_enum)]
        audience: Option<AudienceArg>,
        /// Whether a human can answer prompts (default: the parent's, else interactive).
        #[arg(long, value_enum)]
        channel: Option<ChannelArg>,
        /// Parent session: the child sees its "This chat" grants and may only narrow its audience.
        #[arg(long, value_name = "ID")]
        parent: Option<String>,
        /// The project directory: read-only commands inside it run without asking.
        #[arg(long, value_name = "DIR")]
        project_dir: Option<String>,
    },
    /// Show a session as JSON.
    Show {
        /// Session id.
        id: String,
    },
    /// Declare the session's project directory.
    #[command(after_help = "\
The directory must exist. Read-only commands inside it then run without asking,
and approvals of commands there can be saved as \"Always here\".
Refused for public sessions.")]
    SetProjectDir {
        /// Session id.
        id: String,
        /// The project directory (made absolute).
        dir: String,
    },
    /// End a session (its "This chat" grants end with it).
    End {
        /// Session id.
        id: String,
    },
}

fn check_id(id: &str) -> Result<()> {
    if !is_valid_session_id(id) {
        return Err(UsageError(format!("invalid session id '{id}'")).into());
    }
    Ok(())
}

pub fn run(homes: &Homes, cmd: SessionCmd) -> Result<u8> {
    let mut edge = Edge::new(homes.clone());
    match cmd {
        SessionCmd::Create {
            id,
            audience,
            channel,
            parent,
            project_dir,
        } => {
            let id = id.unwrap_or_else(new_id);
            check_id(&id)?;
            if let Some(p) = &parent {
                check_id(p)?;
            }
            let db = edge
                .db(true)?
                .ok_or_else(|| anyhow::anyhow!("no state database"))?;
            let parent_rec = match &parent {
                Some(p) => match db.session(p)? {
                    Some(r) => Some(r),
                    None => bail!("parent session '{p}' does not exist"),
                },
                None => None,
            };
            let requested: Option<Audience> = audience.map(Into::into);
            let audience = match (&parent_rec, requested) {
                (Some(pr), Some(a)) if a > pr.audience => {
                    eprintln!(
                        "audience_escalation: a child of a {} session cannot be {}",
                        pr.audience.as_str(),
                        a.as_str()
                    );
                    return Ok(1);
                }
                (_, Some(a)) => a,
                (Some(pr), None) => pr.audience,
                (None, None) => Audience::Public,
            };
            let channel: Channel = channel
                .map(Into::into)
                .or(parent_rec.as_ref().map(|p| p.channel))
                .unwrap_or(Channel::Interactive);
            let project_dir = match project_dir {
                Some(d) => {
                    let n = edge::normalize_dir(&d, &homes.user);
                    if !shellgate_policy::fs::is_dir(&OsFs, &n) {
                        bail!("project directory {n} does not exist or is not a directory");
                    }
                    Some(n)
                }
                None => parent_rec.as_ref().and_then(|p| p.project_dir.clone()),
            };
            db.create_session(&SessionRecord {
                id: id.clone(),
                audience,
                channel,
                parent,
                project_dir,
                created_at: String::new(),
                ended_at: None,
            })?;
            let _ = std::fs::create_dir_all(homes.session_dir(&id));
            println!("{id}");
            Ok(0)
        }
        SessionCmd::Show { id } => {
            check_id(&id)?;
            let rec = match edge.db(false)? {
                Some(db) => db.session(&id)?,
                None => None,
            };
            let Some(r) = rec else {
                eprintln!("session '{id}' does not exist");
                return Ok(1);
            };
            let v = serde_json::json!({
                "id": r.id,
                "audience": r.audience.as_str(),
                "channel": r.channel.as_str(),
                "parent": r.parent,
                "project_dir": r.project_dir,
                "session_dir": paths::normalize(&homes.session_dir(&id).to_string_lossy()),
                "created_at": r.created_at,
                "ended_at": r.ended_at,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
            Ok(0)
        }
        SessionCmd::SetProjectDir { id, dir } => {
            check_id(&id)?;
            let n = edge::normalize_dir(&dir, &homes.user);
            if !shellgate_policy::fs::is_dir(&OsFs, &n) {
                eprintln!("{n} does not exist or is not a directory");
                return Ok(1);
            }
            let db = edge
                .db(true)?
                .ok_or_else(|| anyhow::anyhow!("no state database"))?;
            let rec = match db.session(&id)? {
                Some(r) => r,
                None => {
                    // An implicit session becomes a recorded one.
                    let r = SessionRecord {
                        id: id.clone(),
                        audience: Audience::Personal,
                        channel: Channel::Interactive,
                        parent: None,
                        project_dir: None,
                        created_at: String::new(),
                        ended_at: None,
                    };
                    db.create_session(&r)?;
                    r
                }
            };
            if rec.audience == Audience::Public {
                eprintln!("refused: public sessions cannot declare a project directory");
                return Ok(1);
            }
            if !rec.channel.is_interactive() {
                let sd = paths::normalize(&homes.session_dir(&id).to_string_lossy());
                let inside = shellgate_policy::fs::contains(&OsFs, &sd, &n)
                    || rec
                        .project_dir
                        .as_ref()
                        .is_some_and(|p| shellgate_policy::fs::contains(&OsFs, p, &n));
                if !inside {
                    eprintln!("refused: an unattended session may only declare a project inside its write zone");
                    return Ok(1);
                }
            }
            db.set_project_dir(&id, &n)?;
            println!("{n}");
            Ok(0)
        }
        SessionCmd::End { id } => {
            check_id(&id)?;
            let ended = match edge.db(false)? {
                Some(db) => db.end_session(&id)?,
                None => false,
            };
            if ended {
                println!("Ended session '{id}'.");
                Ok(0)
            } else {
                eprintln!("session '{id}' does not exist");
                Ok(1)
            }
        }
    }
}

fn new_id() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("s-{:x}-{:x}", now, std::process::id())
}
