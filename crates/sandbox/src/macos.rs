//! macOS: run the command under `sandbox-exec -p PROFILE`.

use std::convert::Infallible;
use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use crate::plan::Confinement;
use crate::{SandboxError, Support, Unsupported};

const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

pub(crate) fn support() -> Result<Support, Unsupported> {
    if Path::new(SANDBOX_EXEC).exists() {
        Ok(Support {
            mechanism: "seatbelt",
            landlock_abi: None,
        })
    } else {
        Err(Unsupported::new(format!("{SANDBOX_EXEC} is missing")))
    }
}

pub(crate) fn exec(c: &Confinement, argv: &[OsString]) -> Result<Infallible, SandboxError> {
    support()?;
    let profile = c.seatbelt_profile()?;
    let mut cmd = Command::new(SANDBOX_EXEC);
    if c.private_temp {
        std::fs::create_dir_all(&c.temp_dir)
            .map_err(|e| SandboxError::setup(format!("creating {}", c.temp_dir.display()), e))?;
        cmd.env("TMPDIR", &c.temp_dir);
    }
    let err = cmd.arg("-p").arg(profile).args(argv).exec();
    Err(SandboxError::Exec {
        program: SANDBOX_EXEC.to_string(),
        source: err,
    })
}
