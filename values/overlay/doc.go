// Package overlay generates the helper values of a transition plan: their
// names, the values of each pass as the strings a render gives
// (PassValues), and the values overlay (Generate, GenerateFor) whose gotpl
// strings make the sylva-units chart of a release run the passes of every
// supported upgrade into it, written as YAML, JSON or a kustomize
// Component. It generates text only: it renders nothing and links no Helm.
package overlay
