// Package treetest reads back what a tree sink (git, gitlab) wrote, for
// the sinktest conformance suite and docs tests: Reader turns the files of
// a branch into the inventory's sinktest.Projection, through the state
// file the sink keeps. Each backend supplies only how a branch's files are
// read. It owns no production behaviour: only tests import it.
package treetest
