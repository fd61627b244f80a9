/** Slugs name models and providers in URLs: lowercase words joined by `-`, `.` or `_`. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:[-._][a-z0-9]+)*$/;
export const SLUG_MAX_LENGTH = 100;
