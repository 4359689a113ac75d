//! Integration tests: real servers on port 0, real HTTP.

mod bad_input;
mod flows;
mod helpers;
mod hidden;
mod openapi;
mod web;
