//! Jobs as the engine keeps them: their state and data, in key order, and the job lifecycle as a
//! table of transitions.

use std::sync::Arc;

use crate::runtime::records::{JobValue, Key};

/// The state of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum JobState {
    /// Waiting for a worker (created, failed with retries, timed out, retries updated).
    Activatable,
    /// Handed to a worker, with a deadline.
    Activated,
    /// Failed with retries left and a backoff that has not passed yet.
    FailedBackoff,
    /// Failed with no retries left: an incident is open.
    Failed,
    /// An error was thrown and not caught: an incident is open.
    ErrorThrown,
    /// Parked while its process instance is suspended (Zeebe 8.10): no worker gets it.
    Suspended,
}

/// What moves a job from one state to another (completing and canceling remove it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JobTransition {
    /// `JOB_BATCH ACTIVATED`: handed to a worker.
    Activate,
    /// `JOB TIMED_OUT`: the worker's deadline passed.
    TimeOut,
    /// `JOB FAILED` with retries left and a backoff.
    FailWithBackoff,
    /// `JOB FAILED` with retries left and no backoff.
    FailAndRetry,
    /// `JOB FAILED` with no retries left (an incident is raised).
    FailWithoutRetries,
    /// `JOB RECURRED_AFTER_BACKOFF`.
    Recur,
    /// `JOB ERROR_THROWN`.
    ThrowError,
    /// The job's incident is resolved.
    ResolveIncident,
    /// `JOB SUSPENDED`: its process instance is suspended.
    Suspend,
    /// `JOB RESUMED`: its process instance is resumed.
    Resume,
}

impl JobState {
    /// The job lifecycle as a table: the state after `transition` from this state, `None` where
    /// the transition cannot happen.
    pub(crate) fn after(self, transition: JobTransition) -> Option<JobState> {
        use JobState::*;
        use JobTransition as T;
        match (self, transition) {
            (Activatable, T::Activate) => Some(Activated),
            (Activated, T::TimeOut) => Some(Activatable),
            (Activatable | Activated, T::FailWithBackoff) => Some(FailedBackoff),
            (Activatable | Activated, T::FailAndRetry) => Some(Activatable),
            (Activatable | Activated, T::FailWithoutRetries) => Some(Failed),
            (FailedBackoff, T::Recur) => Some(Activatable),
            (Activatable | Activated, T::ThrowError) => Some(ErrorThrown),
            (Failed | ErrorThrown, T::ResolveIncident) => Some(Activatable),
            // Zeebe's ADR "suspended job state": only a job waiting for a worker is parked.
            (Activatable, T::Suspend) => Some(Suspended),
            (Suspended, T::Resume) => Some(Activatable),
            _ => None,
        }
    }

    /// Whether a worker may answer the job (complete it, fail it, throw an error).
    pub(crate) fn is_answerable(self) -> bool {
        matches!(self, JobState::Activatable | JobState::Activated)
    }

    /// The state's name in Zeebe's rejections.
    pub(crate) fn rejection_name(self) -> &'static str {
        match self {
            JobState::Activatable | JobState::Activated => "ACTIVATABLE",
            JobState::FailedBackoff | JobState::Failed => "FAILED",
            JobState::ErrorThrown => "ERROR_THROWN",
            JobState::Suspended => "SUSPENDED",
        }
    }
}

/// A job: its state and its data, shared with the records written about it (see
/// [`JobValue`]; reads go through `Deref`, writes through [`Job::value_mut`]).
#[derive(Debug, Clone)]
pub struct Job {
    pub key: Key,
    pub state: JobState,
    pub value: Arc<JobValue>,
}

impl Job {
    /// Moves the job through its lifecycle table; a transition the table does not allow
    /// leaves the state as it is (the callers check first).
    pub(crate) fn transition(&mut self, transition: JobTransition) {
        let next = self.state.after(transition);
        debug_assert!(
            next.is_some(),
            "job {} cannot {transition:?} from {:?}",
            self.key,
            self.state
        );
        if let Some(state) = next {
            self.state = state;
        }
    }

    /// The job's data for a change: copied first if a record still shares it.
    pub fn value_mut(&mut self) -> &mut JobValue {
        Arc::make_mut(&mut self.value)
    }
}

impl std::ops::Deref for Job {
    type Target = JobValue;

    fn deref(&self) -> &JobValue {
        &self.value
    }
}

/// Open jobs in key order. Keys are handed out in increasing order, so a new job goes to the
/// back, and jobs usually complete oldest first: a deque searched by binary search beats a
/// tree map here (no node per few jobs, no rebalancing), and iteration is still by key.
#[derive(Debug, Clone, Default)]
pub struct JobStore {
    jobs: std::collections::VecDeque<Job>,
    /// Keys of jobs that became activatable, in order (see
    /// [`Engine::activatable_jobs_since`](crate::runtime::engine::Engine::activatable_jobs_since)).
    pub(crate) feed: Vec<Key>,
}

impl JobStore {
    #[inline]
    fn position(&self, key: Key) -> Result<usize, usize> {
        // The newest job is the one most often asked for (just created, about to complete).
        match self.jobs.back() {
            Some(last) if last.key == key => Ok(self.jobs.len() - 1),
            _ => self.jobs.binary_search_by_key(&key, |j| j.key),
        }
    }

    #[inline]
    pub fn get(&self, key: &Key) -> Option<&Job> {
        self.position(*key).ok().map(|i| &self.jobs[i])
    }

    #[inline]
    pub fn get_mut(&mut self, key: &Key) -> Option<&mut Job> {
        self.position(*key).ok().map(|i| &mut self.jobs[i])
    }

    pub fn contains_key(&self, key: &Key) -> bool {
        self.position(*key).is_ok()
    }

    /// Adds (or replaces) the job with this key.
    pub fn insert(&mut self, key: Key, job: Job) {
        debug_assert_eq!(key, job.key);
        match self.position(key) {
            Ok(i) => self.jobs[i] = job,
            Err(i) if i == self.jobs.len() => self.jobs.push_back(job),
            Err(i) => self.jobs.insert(i, job),
        }
    }

    pub fn remove(&mut self, key: &Key) -> Option<Job> {
        let i = self.position(*key).ok()?;
        self.jobs.remove(i)
    }

    /// The jobs, by key.
    pub fn values(&self) -> impl Iterator<Item = &Job> {
        self.jobs.iter()
    }
}

impl std::ops::Index<&Key> for JobStore {
    type Output = Job;

    fn index(&self, key: &Key) -> &Job {
        self.get(key).expect("job exists")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use JobTransition as T;

    #[test]
    fn a_job_is_answered_only_while_activatable_or_activated() {
        use JobState::*;
        for state in [Activatable, Activated, FailedBackoff, Failed, ErrorThrown] {
            let answerable = state.is_answerable();
            for t in [
                T::FailWithBackoff,
                T::FailAndRetry,
                T::FailWithoutRetries,
                T::ThrowError,
            ] {
                assert_eq!(state.after(t).is_some(), answerable, "{state:?} {t:?}");
            }
        }
    }

    #[test]
    fn the_lifecycle_rows() {
        use JobState::*;
        assert_eq!(Activatable.after(T::Activate), Some(Activated));
        assert_eq!(Activated.after(T::Activate), None);
        assert_eq!(Activated.after(T::TimeOut), Some(Activatable));
        assert_eq!(Activatable.after(T::TimeOut), None);
        assert_eq!(Activated.after(T::FailWithBackoff), Some(FailedBackoff));
        assert_eq!(FailedBackoff.after(T::Recur), Some(Activatable));
        assert_eq!(Activated.after(T::FailWithoutRetries), Some(Failed));
        assert_eq!(Failed.after(T::ResolveIncident), Some(Activatable));
        assert_eq!(ErrorThrown.after(T::ResolveIncident), Some(Activatable));
        assert_eq!(FailedBackoff.after(T::ResolveIncident), None);
        assert_eq!(Activatable.after(T::ResolveIncident), None);
    }
}
