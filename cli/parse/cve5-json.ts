/**
 * Tolerant readers for the optional lists of the CVE feeds (NVD and CVE 5): a missing or
 * mistyped list reads as empty, so new or absent keys never break a record (cve-feeds.md §1
 * gotchas 5 and 9). Required fields are checked where they are read, with a RawFormatError.
 */
import { isObject } from './common.ts';

export type JsonObject = Record<string, unknown>;

/** The objects of a list; anything else in it is ignored. */
export function objects(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** The non-empty strings of a list. */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v !== '') : [];
}
