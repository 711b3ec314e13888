//! The AI Agent mock through the command line.

mod replay_cli;
