import { describe, expect, it } from 'vitest';
import { destinationPoint } from '../../src/core/geodesy.js';
import { countryAt, distanceToBorderKm, locate } from '../../src/geo/index.js';
import { outlineAt } from '../../src/geo/outlines.js';

describe('locate: capitals', () => {
  it.each([
    ['Washington', 38.8977, -77.0365, 'United States of America', 'Northern America'],
    ['Ottawa', 45.4215, -75.6972, 'Canada', 'Northern America'],
    ['Mexico City', 19.4326, -99.1332, 'Mexico', 'Central America'],
    ['Bogotá', 4.711, -74.0721, 'Colombia', 'South America'],
    ['Brasília', -15.7939, -47.8828, 'Brazil', 'South America'],
    ['Buenos Aires', -34.6037, -58.3816, 'Argentina', 'South America'],
    ['London', 51.5074, -0.1278, 'United Kingdom', 'Northern Europe'],
    ['Paris', 48.8566, 2.3522, 'France', 'Western Europe'],
    ['Madrid', 40.4168, -3.7038, 'Spain', 'Southern Europe'],
    ['Rome', 41.9028, 12.4964, 'Italy', 'Southern Europe'],
    ['Vatican', 41.9029, 12.4534, 'Vatican', 'Southern Europe'],
    ['Prague', 50.0755, 14.4378, 'Czechia', 'Eastern Europe'],
    ['Belgrade', 44.8125, 20.4612, 'Republic of Serbia', 'Southern Europe'],
    ['Skopje', 41.9973, 21.428, 'North Macedonia', 'Southern Europe'],
    ['Pristina', 42.6629, 21.1655, 'Kosovo', 'Southern Europe'],
    ['Moscow', 55.7558, 37.6173, 'Russia', 'Eastern Europe'],
    ['Cairo', 30.0444, 31.2357, 'Egypt', 'Northern Africa'],
    ['Nairobi', -1.2921, 36.8219, 'Kenya', 'Eastern Africa'],
    ['Abidjan', 5.36, -4.0083, 'Ivory Coast', 'Western Africa'],
    ['Kinshasa', -4.4419, 15.2663, 'Democratic Republic of the Congo', 'Middle Africa'],
    ['Brazzaville', -4.2634, 15.2429, 'Republic of the Congo', 'Middle Africa'],
    ['Dar es Salaam', -6.7924, 39.2083, 'United Republic of Tanzania', 'Eastern Africa'],
    ['Mbabane', -26.3054, 31.1367, 'eSwatini', 'Southern Africa'],
    ['Pretoria', -25.7479, 28.2293, 'South Africa', 'Southern Africa'],
    ['Hargeisa', 9.5624, 44.077, 'Somaliland', 'Eastern Africa'],
    ['Beijing', 39.9042, 116.4074, 'China', 'Eastern Asia'],
    ['Hong Kong', 22.2793, 114.1628, 'Hong Kong S.A.R.', 'Eastern Asia'],
    ['Tokyo', 35.6762, 139.6503, 'Japan', 'Eastern Asia'],
    ['New Delhi', 28.6139, 77.209, 'India', 'Southern Asia'],
    ['Bangkok', 13.7563, 100.5018, 'Thailand', 'South-Eastern Asia'],
    ['Singapore', 1.2903, 103.852, 'Singapore', 'South-Eastern Asia'],
    ['Dili', -8.5569, 125.5603, 'East Timor', 'South-Eastern Asia'],
    ['Canberra', -35.2809, 149.13, 'Australia', 'Australia and New Zealand'],
    ['Wellington', -41.2865, 174.7762, 'New Zealand', 'Australia and New Zealand'],
    ['Nassau', 25.0443, -77.3504, 'The Bahamas', 'Caribbean'],
    ['Andorra la Vella', 42.5063, 1.5218, 'Andorra', 'Southern Europe'],
    ['Vaduz', 47.141, 9.5209, 'Liechtenstein', 'Western Europe'],
  ])('%s (%f, %f) is in %s', (_city, lat, lon, country, subregion) => {
    const place = locate(lat, lon);
    expect(place).toMatchObject({ country, subregion, offshoreKm: 0 });
    expect(place.nearestCity.distanceKm).toBeLessThan(15);
  });

  it('fills the ISO codes and continent of the country', () => {
    expect(locate(44.8125, 20.4612)).toMatchObject({ iso2: 'RS', iso3: 'SRB', continent: 'Europe' });
    expect(locate(9.5624, 44.077)).toMatchObject({ iso2: null, iso3: 'SOL', continent: 'Africa' });
  });
});

describe('locate: near borders, where country-coder beats the 10m outlines', () => {
  it.each([
    ['Nakhon Phanom (Mekong bank)', 17.3947, 104.7695, 'Thailand'],
    ['Thakhek, across the Mekong', 17.4105, 104.8316, 'Laos'],
    ['Basel', 47.5596, 7.5886, 'Switzerland'],
    ['Weil am Rhein', 47.5936, 7.6206, 'Germany'],
    ['Saint-Louis', 47.59, 7.56, 'France'],
    ['Geneva', 46.2044, 6.1432, 'Switzerland'],
    ['Ferney-Voltaire', 46.2558, 6.1081, 'France'],
    ['Annemasse', 46.1934, 6.2342, 'France'],
    ['Strasbourg', 48.5734, 7.7521, 'France'],
    ['Kehl', 48.5725, 7.8156, 'Germany'],
    ['Tijuana', 32.5149, -117.0382, 'Mexico'],
    ['San Ysidro', 32.5543, -117.0421, 'United States of America'],
    ['Ciudad Juárez', 31.72, -106.46, 'Mexico'],
    ['El Paso', 31.7619, -106.485, 'United States of America'],
    ['Baarle-Hertog (Belgian enclave)', 51.4416, 4.9297, 'Belgium'],
    ['Baarle-Nassau', 51.4474, 4.9305, 'Netherlands'],
    ['Narva', 59.3772, 28.1903, 'Estonia'],
    ['Ivangorod', 59.3766, 28.2231, 'Russia'],
  ])('%s (%f, %f) is in %s', (_place, lat, lon, country) => {
    expect(countryAt(lat, lon)).toMatchObject({ country, offshoreKm: 0 });
  });

  it('trusts country-coder where the 10m outline says otherwise', () => {
    expect(outlineAt(59.3772, 28.1903)?.admin).toBe('Russia'); // Narva
    expect(outlineAt(51.4416, 4.9297)?.admin).toBe('Netherlands'); // Baarle-Hertog
    expect(outlineAt(46.2558, 6.1081)?.admin).toBe('Switzerland'); // Ferney-Voltaire
  });

  it('measures the distance to the border', () => {
    expect(distanceToBorderKm(17.3947, 104.7695)).toBeLessThan(5); // Nakhon Phanom, Mekong border
    expect(distanceToBorderKm(32.5543, -117.0421)).toBeLessThan(5); // San Ysidro
    expect(distanceToBorderKm(55.7558, 37.6173)).toBeGreaterThan(300); // Moscow
    expect(distanceToBorderKm(38.8977, -77.0365)).toBeGreaterThan(0);
    expect(distanceToBorderKm(30, -40)).toBeNull();
  });
});

describe('locate: offshore and open water', () => {
  it.each([
    ['Cabo da Roca', 38.7804, -9.4989, 270, 'Portugal'],
    ['Cape Point', -34.3568, 18.474, 225, 'South Africa'],
    ['Cape Town', -33.9249, 18.4241, 270, 'South Africa'],
  ])('10 km off %s (%f, %f), bearing %i, is %s', (_cape, lat, lon, bearing, country) => {
    const at = destinationPoint(lat, lon, bearing, 10);
    const place = countryAt(at.lat, at.lon);
    expect(place.country).toBe(country);
    expect(place.offshoreKm).toBeGreaterThan(2);
    expect(place.offshoreKm).toBeLessThanOrEqual(12);
  });

  it('rounds the offshore distance to 0.1 km', () => {
    const at = destinationPoint(38.7804, -9.4989, 270, 8);
    expect(countryAt(at.lat, at.lon).offshoreKm).toBe(8.1);
  });

  it('is open water past 25 km, even inside country-coder territorial waters', () => {
    const far = destinationPoint(38.7804, -9.4989, 270, 30);
    const openWater = { country: null, iso2: null, iso3: null, subregion: null, continent: null, offshoreKm: null };
    expect(countryAt(far.lat, far.lon)).toEqual(openWater);
    expect(locate(30, -40)).toMatchObject(openWater); // mid-Atlantic
    expect(locate(0, -150)).toMatchObject(openWater); // mid-Pacific, inside country-coder's Kiribati box
    expect(locate(89, 0)).toMatchObject(openWater); // North Pole
    expect(locate(30, -40).nearestCity.name).toBe('Funchal');
  });

  it('treats the South Pole as Antarctica', () => {
    expect(countryAt(-89.9, 45)).toMatchObject({ country: 'Antarctica', offshoreKm: 0 });
  });
});

describe('locate: nearest major city', () => {
  it('names the city, its country, distance and the bearing from the city to the point', () => {
    const north = locate(38.9, -104.8).nearestCity;
    expect(north).toMatchObject({ name: 'Colorado Springs', iso2: 'US', bearing: 'N' });
    expect(north.distanceKm).toBeCloseTo(7.6, 0);
    expect(locate(38.834, -104.7).nearestCity).toMatchObject({ name: 'Colorado Springs', bearing: 'E' });
    expect(locate(38.78, -104.89).nearestCity).toMatchObject({ name: 'Colorado Springs', bearing: 'SW' });
  });

  it('keeps small capitals and spells names as GeoNames does', () => {
    expect(locate(47.141, 9.5209).nearestCity.name).toBe('Vaduz');
    expect(locate(31.72, -106.46).nearestCity.name).toBe('Juárez');
  });
});

describe('locate: input', () => {
  it('handles points on both sides of the antimeridian', () => {
    expect(locate(-16.8, 179.9).country).toBe('Fiji');
    expect(locate(-16.8, -179.9).country).toBe('Fiji');
    expect(locate(-16.8, 180)).toEqual(locate(-16.8, -180));
    expect(locate(65.5, 179.99).country).toBe('Russia');
    expect(locate(65.5, -179.99).country).toBe('Russia');
  });

  it('normalises longitudes and rejects impossible points', () => {
    expect(locate(48.8566, 2.3522 + 360)).toEqual(locate(48.8566, 2.3522));
    expect(() => locate(91, 0)).toThrow(RangeError);
    expect(() => countryAt(Number.NaN, 0)).toThrow(RangeError);
    expect(() => distanceToBorderKm(0, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
