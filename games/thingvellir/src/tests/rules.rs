//! Given/when/then tests, one per rule sentence that matters.
