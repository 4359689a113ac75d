//! Integration tests: real servers on port 0, real HTTP.

mod bad_input;
mod crash;
mod deadlines;
mod flows;
mod helpers;
mod hidden;
mod mail;
mod openapi;
mod smtp;
