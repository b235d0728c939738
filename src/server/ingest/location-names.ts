/**
 * What counts as a position, for tags and free text alike. A place's name (IPTC's city,
 * XMP's `Location`) is not a position and stays with `gps`; coordinates go under whatever
 * name they are written.
 */

/** Tag names that hold a position: EXIF's and XMP's `GPS*`, and latitude or longitude by any other name. */
const LOCATION_NAME = /gps|latitude|longitude/i;

/** "48.8566, 2.3522": two decimal degrees side by side, as phones and tools write them in text. */
const DECIMAL_PAIR = /[-+]?\d{1,3}\.\d{3,}\s*[,; ]\s*[-+]?\d{1,3}\.\d{3,}/;

/** "48° 51' 24" N" or "48 deg 51' 23.76\" N": degrees, minutes, seconds and a hemisphere. */
const DEGREES_MINUTES_SECONDS =
  /\d{1,3}\s*(?:°|deg)\s*\d{1,2}\s*['′]\s*[\d.]+\s*(?:["″]|'')?\s*[NSEW]\b/i;

export function isLocationName(name: string): boolean {
  return LOCATION_NAME.test(name);
}

/** Whether free text (a PNG text chunk, a comment) carries a position. */
export function mentionsLocation(text: string): boolean {
  return LOCATION_NAME.test(text) || DECIMAL_PAIR.test(text) || DEGREES_MINUTES_SECONDS.test(text);
}
