/** Offline geography: the country table, point lookup and nearest major city. */

export { aliasesOf, allCountries, countryByAdmin, countryByIso, countryByName } from './countries.js';
export type { Alias, Country } from './countries.js';
export { countryAt, distanceToBorderKm, loadGeography, locate, OFFSHORE_MAX_KM } from './locate.js';
export type { Location, NearestCity, Place } from './locate.js';
