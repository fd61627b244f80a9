/**
 * Slugs name models and providers in URLs: letters and digits in words joined by `-`, `.` or
 * `_`. Upper case is allowed because imported data carries such slugs (`QwQ-32B-Preview`) and
 * clients key on them as they are; URL paths are case-sensitive, so nothing is lowercased.
 */
export const SLUG_PATTERN = /^[A-Za-z0-9]+(?:[-._][A-Za-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 100;
