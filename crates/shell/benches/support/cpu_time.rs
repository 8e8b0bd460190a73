//! A criterion measurement of the benchmark thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`) instead of wall time: on a machine shared
//! with other jobs, time the thread spends preempted is not counted.
//! Selected with `SHELLGATE_BENCH_CPU=1`; reported in the same units as
//! wall time.

use std::time::Duration;

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;

/// Thread CPU time.
pub struct ThreadCpu;

fn now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a
    // constant the kernel knows.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap_or(0),
        u32::try_from(ts.tv_nsec).unwrap_or(0),
    )
}

impl Measurement for ThreadCpu {
    type Intermediate = Duration;
    type Value = Duration;

    fn start(&self) -> Duration {
        now()
    }
    fn end(&self, i: Duration) -> Duration {
        now().saturating_sub(i)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanos
    }
}

/// Nanoseconds shown as ns, µs, ms or s (criterion's own style).
struct Nanos;

impl ValueFormatter for Nanos {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (div, unit) = if typical < 1e3 {
            (1.0, "ns")
        } else if typical < 1e6 {
            (1e3, "µs")
        } else if typical < 1e9 {
            (1e6, "ms")
        } else {
            (1e9, "s")
        };
        for v in values {
            *v /= div;
        }
        unit
    }
    fn scale_throughputs(
        &self,
        _typical: f64,
        throughput: &Throughput,
        values: &mut [f64],
    ) -> &'static str {
        let n = match throughput {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Elements(n) => {
                *n as f64
            }
        };
        for v in values {
            *v = n * 1e9 / *v;
        }
        "elem/s"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

/// A bench `main` that runs the given groups under wall time, or under the
/// thread's CPU time with `SHELLGATE_BENCH_CPU=1`.
macro_rules! bench_main {
    ($($group:path),+ $(,)?) => {
        fn main() {
            if std::env::var_os("SHELLGATE_BENCH_CPU").is_some() {
                let mut c = criterion::Criterion::default()
                    .with_measurement(cpu_time::ThreadCpu)
                    .configure_from_args();
                $($group(&mut c);)+
                c.final_summary();
            } else {
                let mut c = criterion::Criterion::default().configure_from_args();
                $($group(&mut c);)+
                c.final_summary();
            }
        }
    };
}
pub(crate) use bench_main;
