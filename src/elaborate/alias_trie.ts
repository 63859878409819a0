/**
 * The names of a file's aliases as a trie, for attaching them to the probe-point tree one level
 * at a time (MatchNode.addAliasLevel): per level, in order of first appearance, entries
 * [component name, argument kind (KIND_CHAR), the aliases named by the path ending here as
 * (alias index, name index) pairs, the next level or 0].  A script using syscall.read then
 * spreads the `syscall` level of syscalls.stp and the `read` level, not all 686 names.
 */
export type AliasTrieLevel = AliasTrieEntry[];
export type AliasTrieEntry = [string, string, number[], AliasTrieLevel | 0];
