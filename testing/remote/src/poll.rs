//! Waiting for an eventually consistent endpoint: an attempt is repeated until it holds or the
//! timeout passes, backing off from 1 ms (an endpoint that is already consistent costs one
//! request); the last attempt's failure is what the caller reports.

use std::time::{Duration, Instant};

/// The first pause between attempts.
const FIRST_PAUSE: Duration = Duration::from_millis(1);
/// The longest pause between attempts.
const LONGEST_PAUSE: Duration = Duration::from_millis(100);

/// What one attempt found.
pub enum Attempt<T, E> {
    /// It holds: done.
    Done(T),
    /// Not (yet): try again until the timeout; `E` says what this attempt saw.
    Retry(E),
    /// It cannot hold (an error no wait repairs): stop at once.
    Stop(E),
}

/// Repeats `attempt` until it is done, stops, or `timeout` passes; then the last failure.
/// The attempt runs at least once, and never starts after the deadline.
pub fn poll<T, E>(timeout: Duration, mut attempt: impl FnMut() -> Attempt<T, E>) -> Result<T, E> {
    let deadline = Instant::now() + timeout;
    let mut pause = FIRST_PAUSE;
    loop {
        match attempt() {
            Attempt::Done(t) => return Ok(t),
            Attempt::Stop(e) => return Err(e),
            Attempt::Retry(e) => {
                let now = Instant::now();
                if now >= deadline {
                    return Err(e);
                }
                std::thread::sleep(pause.min(deadline - now));
                pause = (pause * 2).min(LONGEST_PAUSE);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poll_ends_with_what_the_last_attempt_saw() {
        let mut n = 0;
        let start = Instant::now();
        let r: Result<(), String> = poll(Duration::from_millis(30), || {
            n += 1;
            Attempt::Retry(format!("attempt {n}"))
        });
        assert_eq!(r, Err(format!("attempt {n}")));
        assert!(n > 3, "{n}");
        assert!(start.elapsed() < Duration::from_millis(300));
        let mut m = 0;
        let r: Result<u8, String> = poll(Duration::from_secs(10), || {
            m += 1;
            if m == 3 {
                Attempt::Done(7)
            } else {
                Attempt::Retry(String::new())
            }
        });
        assert_eq!(r, Ok(7));
        let r: Result<u8, &str> = poll(Duration::from_secs(10), || Attempt::Stop("no"));
        assert_eq!(r, Err("no"));
        let r: Result<u8, &str> = poll(Duration::ZERO, || Attempt::Retry("once"));
        assert_eq!(r, Err("once"));
    }
}
