/**
 * Where the demo tasks stand. Each site is a road point in (or at the edge of) a real town, at least
 * ~5 km from any coast or international border, with the road bearing the frames follow, the month
 * of the (synthetic) capture, the climate that paints the ground, and the direction sign the
 * panorama shows: real destinations along that road, in the country's scripts and distance units.
 *
 * The committed datasets/demo/tasks.jsonl is built from this table (src/demo/tasks.ts), and the
 * renderer finds a task's site again from its start point, so both always agree.
 */

export type Climate = 'temperate' | 'boreal' | 'mediterranean' | 'semiarid' | 'arid' | 'savanna' | 'tropical';

export interface DemoSite {
  /** Natural Earth admin-0 ADMIN name. */
  country: string;
  /** The start frame's position. */
  lat: number;
  lon: number;
  /** Direction of travel along the road, degrees clockwise from true north. */
  roadBearingDeg: number;
  /** `YYYY-MM`. */
  capturedAt: string;
  climate: Climate;
  /** Lines of the direction sign, top to bottom. */
  sign: readonly string[];
}

// Town names in the comments are for maintainers only; they never enter the JSONL.
export const DEMO_SITES: readonly DemoSite[] = [
  // Wichita, Kansas: north toward Newton (miles).
  { country: 'United States of America', lat: 37.6872, lon: -97.3301, roadBearingDeg: 0, capturedAt: '2024-07', climate: 'temperate', sign: ['Newton 25', 'Salina 88'] },
  // Boise, Idaho: east toward Mountain Home.
  { country: 'United States of America', lat: 43.615, lon: -116.2023, roadBearingDeg: 95, capturedAt: '2023-09', climate: 'semiarid', sign: ['Mountain Home 41', 'Twin Falls 128'] },
  // Red Deer, Alberta: south toward Calgary.
  { country: 'Canada', lat: 52.269, lon: -113.8116, roadBearingDeg: 180, capturedAt: '2024-06', climate: 'temperate', sign: ['Innisfail 30', 'Calgary 145'] },
  // Sudbury, Ontario: east toward North Bay.
  { country: 'Canada', lat: 46.4917, lon: -80.993, roadBearingDeg: 85, capturedAt: '2023-08', climate: 'boreal', sign: ['North Bay 130', 'Ottawa 485'] },
  // Campinas, Sao Paulo: south-east toward Sao Paulo.
  { country: 'Brazil', lat: -22.9056, lon: -47.0608, roadBearingDeg: 140, capturedAt: '2024-06', climate: 'tropical', sign: ['Jundiaí 40', 'São Paulo 93'] },
  // Uberlandia, Minas Gerais: south-east toward Uberaba.
  { country: 'Brazil', lat: -18.9186, lon: -48.2772, roadBearingDeg: 135, capturedAt: '2023-08', climate: 'savanna', sign: ['Uberaba 107', 'Ribeirão Preto 280'] },
  // Cordoba: west toward Villa Carlos Paz.
  { country: 'Argentina', lat: -31.4201, lon: -64.1888, roadBearingDeg: 250, capturedAt: '2024-02', climate: 'semiarid', sign: ['Villa Carlos Paz 36', 'Cosquín 62'] },
  // Mendoza: north toward San Juan.
  { country: 'Argentina', lat: -32.8895, lon: -68.8458, roadBearingDeg: 10, capturedAt: '2023-10', climate: 'arid', sign: ['San Juan 167', 'Lavalle 35'] },
  // Northampton: north-north-west toward Leicester (miles).
  { country: 'United Kingdom', lat: 52.2405, lon: -0.9027, roadBearingDeg: 340, capturedAt: '2024-05', climate: 'temperate', sign: ['Market Harborough 17', 'Leicester 34'] },
  // Shrewsbury: east toward Telford.
  { country: 'United Kingdom', lat: 52.7073, lon: -2.7553, roadBearingDeg: 100, capturedAt: '2023-08', climate: 'temperate', sign: ['Telford 13', 'Wolverhampton 30'] },
  // Athlone: east toward Dublin (Irish name first, as on Irish signs).
  { country: 'Ireland', lat: 53.4239, lon: -7.9407, roadBearingDeg: 95, capturedAt: '2024-06', climate: 'temperate', sign: ['Baile Átha Cliath', 'Dublin 125'] },
  // Tullamore: south toward Portlaoise.
  { country: 'Ireland', lat: 53.2739, lon: -7.4889, roadBearingDeg: 185, capturedAt: '2023-09', climate: 'temperate', sign: ['Port Laoise', 'Portlaoise 35'] },
  // Kragujevac: north toward Belgrade (Cyrillic with Latin below).
  { country: 'Republic of Serbia', lat: 44.0128, lon: 20.9114, roadBearingDeg: 0, capturedAt: '2024-04', climate: 'temperate', sign: ['Београд 140', 'Beograd'] },
  // Nis: north-west toward Paracin.
  { country: 'Republic of Serbia', lat: 43.3209, lon: 21.8958, roadBearingDeg: 330, capturedAt: '2023-07', climate: 'temperate', sign: ['Параћин 70', 'Paraćin'] },
  // Larissa: west toward Trikala.
  { country: 'Greece', lat: 39.639, lon: 22.4191, roadBearingDeg: 255, capturedAt: '2024-05', climate: 'mediterranean', sign: ['Τρίκαλα 60', 'Trikala'] },
  // Ioannina: south toward Arta.
  { country: 'Greece', lat: 39.665, lon: 20.8537, roadBearingDeg: 175, capturedAt: '2023-10', climate: 'mediterranean', sign: ['Άρτα 75', 'Arta'] },
  // Lillehammer: south toward Gjovik.
  { country: 'Norway', lat: 61.1153, lon: 10.4662, roadBearingDeg: 200, capturedAt: '2024-07', climate: 'boreal', sign: ['Gjøvik 45', 'Oslo 180'] },
  // Elverum: west toward Hamar.
  { country: 'Norway', lat: 60.8819, lon: 11.5623, roadBearingDeg: 250, capturedAt: '2023-06', climate: 'boreal', sign: ['Hamar 32', 'Oslo 150'] },
  // Tver: south-east toward Moscow.
  { country: 'Russia', lat: 56.8587, lon: 35.9176, roadBearingDeg: 135, capturedAt: '2024-07', climate: 'boreal', sign: ['Клин 85', 'Москва 170'] },
  // Novosibirsk: south toward Barnaul.
  { country: 'Russia', lat: 55.0084, lon: 82.9357, roadBearingDeg: 200, capturedAt: '2023-06', climate: 'boreal', sign: ['Бердск 30', 'Барнаул 230'] },
  // Kutaisi: east toward Tbilisi (Georgian with Latin below).
  { country: 'Georgia', lat: 42.2679, lon: 42.6946, roadBearingDeg: 90, capturedAt: '2024-08', climate: 'temperate', sign: ['თბილისი 230', 'Tbilisi'] },
  // Yerevan: north-east toward Sevan.
  { country: 'Armenia', lat: 40.1872, lon: 44.5152, roadBearingDeg: 60, capturedAt: '2023-09', climate: 'semiarid', sign: ['Սևան 60', 'Sevan'] },
  // Beersheba: east-south-east toward Dimona (Hebrew, Arabic, English).
  { country: 'Israel', lat: 31.2518, lon: 34.7913, roadBearingDeg: 120, capturedAt: '2024-03', climate: 'arid', sign: ['דימונה 36', 'ديمونا', 'Dimona'] },
  // Nazareth: north-west toward Haifa.
  { country: 'Israel', lat: 32.7019, lon: 35.298, roadBearingDeg: 315, capturedAt: '2023-11', climate: 'mediterranean', sign: ['חיפה 35', 'حيفا', 'Haifa'] },
  // Marrakesh: north toward Casablanca (Arabic with French below).
  { country: 'Morocco', lat: 31.6295, lon: -7.9811, roadBearingDeg: 0, capturedAt: '2024-04', climate: 'arid', sign: ['الدار البيضاء 240', 'Casablanca'] },
  // Fes: west toward Meknes.
  { country: 'Morocco', lat: 34.0331, lon: -5.0003, roadBearingDeg: 250, capturedAt: '2023-05', climate: 'mediterranean', sign: ['مكناس 60', 'Meknès'] },
  // Bloemfontein: west toward Kimberley.
  { country: 'South Africa', lat: -29.0852, lon: 26.1596, roadBearingDeg: 280, capturedAt: '2024-06', climate: 'semiarid', sign: ['Boshof 110', 'Kimberley 175'] },
  // Polokwane: south toward Mokopane.
  { country: 'South Africa', lat: -23.9045, lon: 29.4689, roadBearingDeg: 200, capturedAt: '2023-09', climate: 'savanna', sign: ['Mokopane 58', 'Pretoria 270'] },
  // Nakuru: south-east toward Nairobi.
  { country: 'Kenya', lat: -0.3031, lon: 36.08, roadBearingDeg: 130, capturedAt: '2024-07', climate: 'savanna', sign: ['Naivasha 70', 'Nairobi 160'] },
  // Dubbo, New South Wales: south-east toward Orange.
  { country: 'Australia', lat: -32.2569, lon: 148.6011, roadBearingDeg: 145, capturedAt: '2024-03', climate: 'semiarid', sign: ['Wellington 50', 'Orange 150'] },
  // Alice Springs: north up the Stuart Highway.
  { country: 'Australia', lat: -23.698, lon: 133.8807, roadBearingDeg: 0, capturedAt: '2023-07', climate: 'arid', sign: ['Tennant Creek 505', 'Darwin 1490'] },
  // Hamilton: north toward Auckland.
  { country: 'New Zealand', lat: -37.787, lon: 175.2793, roadBearingDeg: 350, capturedAt: '2024-02', climate: 'temperate', sign: ['Huntly 33', 'Auckland 125'] },
  // Taupo: north-north-east toward Rotorua.
  { country: 'New Zealand', lat: -38.6857, lon: 176.0702, roadBearingDeg: 20, capturedAt: '2023-06', climate: 'temperate', sign: ['Wairakei 9', 'Rotorua 80'] },
];
