//! Integration tests: real servers on port 0, real HTTP.

mod bad_input;
mod bardagi;
mod browser;
mod cli;
mod contract;
mod crash;
mod damage;
mod deadlines;
mod disk;
mod fallen_kingdoms;
mod flows;
mod golden;
mod helpers;
mod hidden;
mod mail;
mod memory;
mod openapi;
mod postgres;
mod process;
mod realms;
mod schemas;
mod smtp;
mod thingvellir;
mod times;
mod web;
mod web_axe;
