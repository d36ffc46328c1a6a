// Package action assembles the inputs of the gate commands (plan, report,
// drain-check) from sources behind small interfaces, reads each source
// once, and calls the planner once.
//
// It is the application layer between the command line and the core: it
// reads no clock (the date comes in as AsOf), no environment and no
// standard stream, and builds no cluster client. A live cluster reaches it
// as a StatusSource or a FactsSource the command line built.
package action
