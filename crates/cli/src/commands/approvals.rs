//! `shellgate approvals`: the persistent grant store, for people (SPEC §11).

use anyhow::Result;
use clap::Subcommand;
use shellgate_policy::{Audience, Os};
use shellgate_shell::paths;
use shellgate_store::grant_file::{self, Grant, Store};

use crate::cli::AudienceArg;
use crate::edge::{self, Homes};

#[derive(Subcommand, Debug)]
pub enum ApprovalsCmd {
    /// List persistent approvals.
    List {
        /// Only this audience's approvals.
        #[arg(long, value_enum)]
        audience: Option<AudienceArg>,
        /// Only this tool's approvals (e.g. shell_execute).
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// Print {"audiences": …} in the file's shape.
        #[arg(long)]
        json: bool,
    },
    /// Remove an approval by its label ('<verb> in <dir>' or '<verb> anywhere').
    #[command(after_help = "\
Examples:
  shellgate approvals revoke 'make build in /home/me/repos/app'
  shellgate approvals revoke 'git fetch anywhere'
  shellgate approvals revoke --tool file_write --all")]
    Revoke {
        /// A label exactly as printed by `list`.
        scope: Option<String>,
        /// Only in this audience (default: every audience).
        #[arg(long, value_enum)]
        audience: Option<AudienceArg>,
        /// Only for this tool (default: every tool).
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// With --tool: remove every approval of that tool.
        #[arg(long)]
        all: bool,
    },
    /// Trust a verb anywhere.
    #[command(after_help = "Example:\n  shellgate approvals trust-verb 'git fetch'")]
    TrustVerb {
        /// The verb as `check` reports it (e.g. 'git fetch', 'make build').
        verb: String,
        /// Audience the approval is for.
        #[arg(long, value_enum, default_value = "personal")]
        audience: AudienceArg,
        /// Tool the approval is for.
        #[arg(long, value_name = "NAME", default_value = "shell_execute")]
        tool: String,
    },
    /// Allow a verb in one directory (and below).
    #[command(after_help = "Example:\n  shellgate approvals allow 'make build' --dir ~/repos/app")]
    Allow {
        /// The verb as `check` reports it (e.g. 'make build').
        verb: String,
        /// The directory (shallow directories such as / or /etc are refused).
        #[arg(long, value_name = "DIR")]
        dir: String,
        /// Audience the approval is for.
        #[arg(long, value_enum, default_value = "personal")]
        audience: AudienceArg,
        /// Tool the approval is for.
        #[arg(long, value_name = "NAME", default_value = "shell_execute")]
        tool: String,
    },
    /// Explain the approval commands.
    Help,
}

/// Load the store (which quarantines a bad file), then print the notes
/// about quarantined files that exist.
fn load_with_notes(homes: &Homes) -> Result<Store> {
    let loaded = Store::load(&homes.store_path());
    for n in grant_file::quarantine_notes(&homes.store_path()) {
        println!("{n}");
    }
    Ok(loaded?.0)
}

fn sorted(mut grants: Vec<Grant>) -> Vec<Grant> {
    grants.sort_by(|a, b| {
        a.verb
            .cmp(&b.verb)
            .then_with(|| match (&a.directory, &b.directory) {
                (None, None) => std::cmp::Ordering::Equal,
                (None, Some(_)) => std::cmp::Ordering::Less,
                (Some(_), None) => std::cmp::Ordering::Greater,
                (Some(x), Some(y)) => x.cmp(y),
            })
    });
    grants
}

pub fn run(homes: &Homes, cmd: ApprovalsCmd) -> Result<u8> {
    match cmd {
        ApprovalsCmd::List {
            audience,
            tool,
            json,
        } => {
            let s = load_with_notes(homes)?;
            let audience: Option<Audience> = audience.map(Into::into);
            let groups: Vec<(Audience, String, Vec<Grant>)> = s
                .groups()
                .into_iter()
                .filter(|(a, t, g)| {
                    audience.is_none_or(|x| x == *a)
                        && tool.as_ref().is_none_or(|x| x == t)
                        && !g.is_empty()
                })
                .collect();
            if json {
                let mut auds = serde_json::Map::new();
                for (a, t, g) in &groups {
                    let entry = auds
                        .entry(a.as_str().to_string())
                        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
                    let items: Vec<serde_json::Value> = g
                        .iter()
                        .map(|x| {
                            let mut m = serde_json::Map::new();
                            m.insert("verb".into(), x.verb.clone().into());
                            if let Some(d) = &x.directory {
                                m.insert("directory".into(), d.clone().into());
                            }
                            if let Some(c) = &x.created_at {
                                m.insert("createdAt".into(), c.clone().into());
                            }
                            serde_json::Value::Object(m)
                        })
                        .collect();
                    if let Some(obj) = entry.as_object_mut() {
                        obj.insert(t.clone(), items.into());
                    }
                }
                println!(
                    "{}",
                    serde_json::to_string_pretty(&serde_json::json!({ "audiences": auds }))?
                );
                return Ok(0);
            }
            if groups.is_empty() {
                println!("No persistent approvals.");
                return Ok(0);
            }
            let mut first = true;
            for (a, t, g) in groups {
                if !first {
                    println!();
                }
                first = false;
                println!("{} / {}", a.as_str(), t);
                for x in sorted(g) {
                    println!("  {}", x.label());
                }
            }
            Ok(0)
        }
        ApprovalsCmd::Revoke {
            scope,
            audience,
            tool,
            all,
        } => {
            let s = load_with_notes(homes)?;
            let path = homes.store_path();
            if all {
                let Some(t) = tool else {
                    eprintln!("revoke --all needs --tool T.");
                    return Ok(1);
                };
                let n = grant_file::remove_all_for_tool(&path, &t)?;
                println!("Removed {n} approval(s) for tool '{t}'.");
                return Ok(0);
            }
            let Some(scope) = scope else {
                eprintln!("revoke needs a label as printed by 'shellgate approvals list'.");
                return Ok(1);
            };
            let audience: Option<Audience> = audience.map(Into::into);
            let targets: Vec<(Audience, String)> = s
                .groups()
                .into_iter()
                .filter(|(a, t, _)| {
                    audience.is_none_or(|x| x == *a) && tool.as_ref().is_none_or(|x| x == t)
                })
                .map(|(a, t, _)| (a, t))
                .collect();
            // First by exact label, then by parsing the label.
            let by_label = s.groups().iter().any(|(a, t, g)| {
                targets.contains(&(*a, t.clone())) && g.iter().any(|x| x.label() == scope)
            });
            let matcher: Box<dyn Fn(&Grant) -> bool> = if by_label {
                let sc = scope.clone();
                Box::new(move |g: &Grant| g.label() == sc)
            } else {
                let Some((verb, dir)) = parse_scope(&scope) else {
                    println!("Could not parse revoke pattern '{scope}'.");
                    println!("Use '<verb> in <directory>' or '<verb> anywhere', exactly as 'shellgate approvals list' prints it.");
                    return Ok(1);
                };
                Box::new(move |g: &Grant| g.same_as(&verb, dir.as_deref(), Os::host()))
            };
            let mut removed = 0;
            for (a, t) in targets {
                for g in grant_file::remove(&path, a, &t, &matcher)? {
                    println!("Removed '{}' from {} / {}.", g.label(), a.as_str(), t);
                    removed += 1;
                }
            }
            if removed == 0 {
                println!("No matching approval found.");
                return Ok(1);
            }
            Ok(0)
        }
        ApprovalsCmd::TrustVerb {
            verb,
            audience,
            tool,
        } => {
            load_with_notes(homes)?;
            let audience: Audience = audience.into();
            let v = verb.trim().to_string();
            if v.is_empty() || v.contains(" in ") || v.contains(" anywhere") || v.starts_with('-') {
                eprintln!("Refusing verb '{verb}': a verb may not be empty, contain ' in ' or ' anywhere', or start with '-'.");
                return Ok(1);
            }
            let report = grant_file::add(
                &homes.store_path(),
                audience,
                &tool,
                &[(v.clone(), None)],
                Os::host(),
            )?;
            if report.added.is_empty() {
                println!(
                    "No changes: '{v} anywhere' is already trusted for {} / {tool}.",
                    audience.as_str()
                );
            } else {
                println!("Trusted '{v} anywhere' for {} / {tool}.", audience.as_str());
            }
            Ok(0)
        }
        ApprovalsCmd::Allow {
            verb,
            dir,
            audience,
            tool,
        } => {
            let audience: Audience = audience.into();
            let v = verb.trim().to_string();
            if v.is_empty() || v.contains(" in ") || v.contains(" anywhere") || v.starts_with('-') {
                eprintln!("Refusing verb '{verb}': a verb may not be empty, contain ' in ' or ' anywhere', or start with '-'.");
                return Ok(1);
            }
            let d = edge::normalize_dir(&dir, &homes.user);
            if paths::is_shallow(&d) {
                eprintln!("Refusing '{d}': too broad (fewer than two path segments). Use 'trust-verb' for anywhere.");
                return Ok(1);
            }
            grant_file::add(
                &homes.store_path(),
                audience,
                &tool,
                &[(v.clone(), Some(d.clone()))],
                Os::host(),
            )?;
            println!("Saved: {v} in {d}");
            Ok(0)
        }
        ApprovalsCmd::Help => {
            println!("shellgate approvals — persistent grants in config/tool-approvals.json");
            println!();
            println!("  list [--audience A] [--tool T] [--json]   show grants as '<verb> in <dir>' / '<verb> anywhere'");
            println!("  revoke '<label>' [--audience A] [--tool T]  remove a grant by the label 'list' prints");
            println!("  revoke --tool T --all                      remove every grant of a tool");
            println!("  trust-verb <verb> [--audience A] [--tool T] allow a verb anywhere");
            println!("  allow <verb> --dir DIR                     allow a verb in DIR and below");
            Ok(0)
        }
    }
}

/// Parse `<verb> in <directory>` (first ` in `) or `<verb> anywhere`.
fn parse_scope(s: &str) -> Option<(String, Option<String>)> {
    if let Some(v) = s.strip_suffix(" anywhere") {
        let v = v.trim();
        return (!v.is_empty()).then(|| (v.to_string(), None));
    }
    let i = s.find(" in ")?;
    let verb = s[..i].trim();
    let dir = s[i + 4..].trim();
    if verb.is_empty() || dir.is_empty() {
        return None;
    }
    Some((verb.to_string(), paths::normalize_stored_dir(dir)))
}
