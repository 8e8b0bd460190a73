//! `shellgate decide`: apply a human's answer to a call (SPEC §12.1).

use anyhow::{bail, Result};
use clap::Args;
use shellgate_policy::decision::{plan_answer, Context, Decision, Request};
use shellgate_policy::prompt::{self, ALL_OPTIONS};
use shellgate_policy::Channel;
use shellgate_store::grant_file;
use shellgate_store::state::DecisionRecord;

use crate::cli::CallArgs;
use crate::edge::{self, Edge, Homes};

#[derive(Args, Debug)]
#[command(after_help = "\
Give the same call options as the `check` that asked, and one of the options it
offered:
  approve_once        run this exact call once (within 10 minutes)
  approve_session     \"This chat\": the verbs in their directories, for this session
  approve_always      \"Always here\": the verbs in their directories, saved
  approve_everywhere  \"Always anywhere\": the verbs anywhere, saved
  deny                nothing is saved

Example:
  shellgate decide --option approve_always --cwd ~/repos/app -- 'make build'")]
pub struct DecideArgs {
    #[command(flatten)]
    pub call: CallArgs,
    /// The answer: approve_once, approve_session, approve_always,
    /// approve_everywhere or deny.
    #[arg(long = "option", value_name = "KEY", value_parser = clap::builder::PossibleValuesParser::new(ALL_OPTIONS))]
    pub option: String,
}

pub fn run(homes: &Homes, a: &DecideArgs) -> Result<u8> {
    let policy = edge::load_policy(homes)?;
    let mut edge = Edge::new(homes.clone());
    edge.consume_once = false;
    let mut flags = a.call.flags();
    // A human is answering: the prompt was shown on an interactive channel.
    if flags.channel.is_none() {
        flags.channel = Some(Channel::Interactive);
    }
    let ctx = edge::build_context(&mut edge, &flags)?;
    let req = a.call.request(&homes.user);
    let d = edge::evaluate(&mut edge, &policy, &req, &ctx)?;
    if d.decision != "ask" {
        if d.decision == "allow" && a.option != "deny" {
            println!(
                "Nothing to decide: the call is already allowed ({}).",
                d.reason
            );
            return Ok(0);
        }
        if a.option == "deny" {
            println!("{}", prompt::resolution("deny", &[], ""));
            return Ok(0);
        }
        bail!(
            "cannot approve this call: it is denied ({}): {}",
            d.reason,
            d.message
        );
    }
    let applied = apply_answer(&mut edge, &ctx, &req, &d, &a.option, "decide")?;
    println!("{}", applied.resolution);
    for s in &applied.skipped {
        println!("Skipped (too broad): {s}");
    }
    if a.option == "deny" {
        if let Some(h) = &d.hint {
            println!("{h}");
        }
    }
    Ok(0)
}

/// What applying an answer did.
#[derive(Debug, Clone)]
pub struct Applied {
    /// The resolution line (§7.3).
    pub resolution: String,
    /// Candidates not persisted because they were too broad.
    pub skipped: Vec<String>,
}

/// Apply a human's answer `option` to a decision that asked: check that it
/// was offered, persist what it persists (§12.1: store, session grants or a
/// one-time approval) and log it (when the state db exists or is needed)
/// with `source`. Shared by `decide` and `exec`.
pub fn apply_answer(
    edge: &mut Edge,
    ctx: &Context,
    req: &Request,
    d: &Decision,
    option: &str,
    source: &str,
) -> Result<Applied> {
    let offered = d.options.clone().unwrap_or_default();
    if !offered.iter().any(|o| o == option) {
        bail!(
            "option '{}' was not offered for this call (offered: {})",
            option,
            offered.join(", ")
        );
    }
    let homes = edge.homes.clone();
    let plan = plan_answer(d, option, ctx);
    if !plan.store.is_empty() {
        grant_file::add(
            &homes.store_path(),
            ctx.audience,
            &req.tool,
            &plan.store,
            ctx.os,
        )?;
    }
    let db_needed = plan.once || !plan.session.is_empty();
    if let Some(db) = edge.db(db_needed || homes.db_path().exists())? {
        if !plan.session.is_empty() {
            db.add_session_grants(&ctx.session, ctx.audience, &req.tool, &plan.session)?;
        }
        if plan.once {
            db.add_once(&ctx.session, &req.tool, &req.command, d.cwd.as_deref())?;
        }
        let _ = db.log_decision(&DecisionRecord {
            time: String::new(),
            session: Some(ctx.session.clone()),
            tool: req.tool.clone(),
            command: req.command.clone(),
            cwd: d.cwd.clone(),
            decision: if option == "deny" {
                "deny".into()
            } else {
                "allow".into()
            },
            reason: format!("human:{option}"),
            candidates: serde_json::to_value(&d.candidates).unwrap_or_default(),
            matched_grant: None,
            source: source.into(),
        });
    }
    Ok(Applied {
        resolution: prompt::resolution(option, &d.display_verbs, &d.location),
        skipped: plan.skipped,
    })
}
