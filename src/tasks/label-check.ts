/**
 * Task country labels against accurate borders. Upstream labelled tasks with coarse Natural Earth
 * 1:110m outlines, which put a few points on the wrong side of a border (a point in Nakhon Phanom,
 * Thailand, labelled Laos): such a label is reported as a warning, never silently trusted.
 */
import { truthOf, type LabelCheck } from '../core/tasks.js';
import { countryAt, countryByAdmin, countryByName, distanceToBorderKm } from '../geo/index.js';

export function geoLabelCheck(): LabelCheck {
  return (task) => {
    if (!task.country) return null;
    const labelled = countryByAdmin(task.country) ?? countryByName(task.country);
    if (!labelled) return `country "${task.country}" is not a Natural Earth admin-0 name`;
    const { lat, lon } = truthOf(task);
    const found = countryAt(lat, lon);
    if (found.country === labelled.admin) return null;
    if (found.country === null) return `labelled ${task.country}, but the start point ${fmt(lat)}, ${fmt(lon)} is in open water`;
    const borderKm = distanceToBorderKm(lat, lon);
    const border = borderKm === null ? '' : `, ${borderKm} km from the border`;
    return `labelled ${task.country}, but the start point ${fmt(lat)}, ${fmt(lon)} is in ${found.country}${border}`;
  };
}

function fmt(x: number): string {
  return x.toFixed(5);
}
