/**
 * The acceptance corpus's places, written for it: 45 truths at real towns in 25 countries, and what a
 * leak of each could say. Facts only (names, codes, formats): the local names in their own scripts,
 * a second language's name, the demonym, the admin-1 region in Latin and local script, a town within
 * 50 km in native script with its transliteration or exonym, the calling code, the vehicle oval code
 * and a postcode in a format only that country uses.
 */

export interface CountryFacts {
  /** The name in English as people write it. */
  english: string;
  /** The name in the country's own language and script (absent when it is the English one). */
  local?: string;
  /** The name in another language (German, French, Polish, Russian, Arabic...). */
  other: string;
  demonym: string;
  iso2: string;
  /** The ccTLD without its dot. */
  tld: string;
  /** Absent when shared with another country (+1, +7). */
  calling?: string;
  /** A phone number after the calling code. */
  phone: string;
  /** The international vehicle registration code (absent when the country has none). */
  oval?: string;
  /** A postcode whose format only this country uses (absent when the format is shared). */
  postcode?: string;
}

export interface TownFacts {
  /** As the town writes itself (its own script). */
  native: string;
  /** The Latin-script transliteration, when the native name is in another script. */
  translit?: string;
  /** A name other languages use for it (Cracow, Lemberg, Salonica). */
  exonym?: string;
}

export interface PlaceFacts {
  country: CountryFacts;
  lat: number;
  lon: number;
  region: { latin: string; local?: string };
  /** A town within 50 km of the truth. */
  town: TownFacts;
  /** An ordinary word that is also a town within 50 km (Mobile, Deal, Spa), as running text uses it. */
  townWord?: { word: string; sentence: string };
}

const C = {
  serbia: { english: 'Serbia', local: 'Србија', other: 'Serbien', demonym: 'Serbian', iso2: 'RS', tld: 'rs', calling: '381', phone: '18 523 417', oval: 'SRB' },
  ukraine: { english: 'Ukraine', local: 'Україна', other: 'Ukraina', demonym: 'Ukrainian', iso2: 'UA', tld: 'ua', calling: '380', phone: '32 297 4410', oval: 'UA' },
  russia: { english: 'Russia', local: 'Россия', other: 'Russland', demonym: 'Russian', iso2: 'RU', tld: 'ru', phone: '843 231 1500', oval: 'RUS' },
  greece: { english: 'Greece', local: 'Ελλάδα', other: 'Griechenland', demonym: 'Greek', iso2: 'GR', tld: 'gr', calling: '30', phone: '2310 257 400', oval: 'GR' },
  georgia: { english: 'Georgia', local: 'საქართველო', other: 'Грузия', demonym: 'Georgian', iso2: 'GE', tld: 'ge', calling: '995', phone: '32 2 93 11 11', oval: 'GE' },
  israel: { english: 'Israel', local: 'ישראל', other: 'إسرائيل', demonym: 'Israeli', iso2: 'IL', tld: 'il', calling: '972', phone: '3 521 8000', oval: 'IL' },
  japan: { english: 'Japan', local: '日本', other: 'Japon', demonym: 'Japanese', iso2: 'JP', tld: 'jp', calling: '81', phone: '11 222 4894', oval: 'J', postcode: '〒060-0001' },
  china: { english: 'China', local: '中国', other: 'Chine', demonym: 'Chinese', iso2: 'CN', tld: 'cn', calling: '86', phone: '28 8661 2345' },
  korea: { english: 'South Korea', local: '대한민국', other: 'Südkorea', demonym: 'South Korean', iso2: 'KR', tld: 'kr', calling: '82', phone: '31 228 2114', oval: 'ROK' },
  thailand: { english: 'Thailand', local: 'ประเทศไทย', other: 'Thaïlande', demonym: 'Thai', iso2: 'TH', tld: 'th', calling: '66', phone: '53 942 000', oval: 'T' },
  egypt: { english: 'Egypt', local: 'مصر', other: 'Ägypten', demonym: 'Egyptian', iso2: 'EG', tld: 'eg', calling: '20', phone: '2 3567 1234', oval: 'ET' },
  brazil: { english: 'Brazil', local: 'Brasil', other: 'Brésil', demonym: 'Brazilian', iso2: 'BR', tld: 'br', calling: '55', phone: '31 3277 4000', oval: 'BR', postcode: '30130-110' },
  poland: { english: 'Poland', local: 'Polska', other: 'Polen', demonym: 'Polish', iso2: 'PL', tld: 'pl', calling: '48', phone: '12 616 12 00', oval: 'PL', postcode: '31-042' },
  germany: { english: 'Germany', local: 'Deutschland', other: 'Allemagne', demonym: 'German', iso2: 'DE', tld: 'de', calling: '49', phone: '89 233 00', oval: 'D' },
  france: { english: 'France', other: 'Frankreich', demonym: 'French', iso2: 'FR', tld: 'fr', calling: '33', phone: '5 61 22 29 22', oval: 'F' },
  uk: { english: 'United Kingdom', other: 'Royaume-Uni', demonym: 'British', iso2: 'GB', tld: 'uk', calling: '44', phone: '131 200 2000', oval: 'UK', postcode: 'EH1 1YZ' },
  usa: { english: 'United States', other: 'Estados Unidos', demonym: 'American', iso2: 'US', tld: 'us', phone: '719 385 5900', oval: 'USA', postcode: '80903-1427' },
  canada: { english: 'Canada', other: 'Kanada', demonym: 'Canadian', iso2: 'CA', tld: 'ca', phone: '418 641 6010', oval: 'CDN', postcode: 'G1R 4P5' },
  india: { english: 'India', local: 'भारत', other: 'Indien', demonym: 'Indian', iso2: 'IN', tld: 'in', calling: '91', phone: '80 2221 1234', oval: 'IND' },
  australia: { english: 'Australia', other: 'Australien', demonym: 'Australian', iso2: 'AU', tld: 'au', calling: '61', phone: '7 3403 8888', oval: 'AUS' },
  mexico: { english: 'Mexico', local: 'México', other: 'Mexique', demonym: 'Mexican', iso2: 'MX', tld: 'mx', calling: '52', phone: '33 3668 8000', oval: 'MEX' },
  belgium: { english: 'Belgium', local: 'België', other: 'Belgien', demonym: 'Belgian', iso2: 'BE', tld: 'be', calling: '32', phone: '87 32 53 11', oval: 'B' },
  croatia: { english: 'Croatia', local: 'Hrvatska', other: 'Kroatien', demonym: 'Croatian', iso2: 'HR', tld: 'hr', calling: '385', phone: '21 885 222', oval: 'HR' },
  netherlands: { english: 'Netherlands', local: 'Nederland', other: 'Pays-Bas', demonym: 'Dutch', iso2: 'NL', tld: 'nl', calling: '31', phone: '30 286 0000', oval: 'NL', postcode: '3511 AB' },
  argentina: { english: 'Argentina', other: 'Argentinien', demonym: 'Argentine', iso2: 'AR', tld: 'ar', calling: '54', phone: '351 428 5600', oval: 'RA', postcode: 'X5000ARN' },
} satisfies Record<string, CountryFacts>;

/** The truths, in task order. */
export const PLACES: readonly PlaceFacts[] = [
  { country: C.serbia, lat: 43.3209, lon: 21.8958, region: { latin: 'Nišava District', local: 'Нишавски округ' }, town: { native: 'Алексинац', translit: 'Aleksinac' } },
  { country: C.serbia, lat: 45.2671, lon: 19.8335, region: { latin: 'Vojvodina', local: 'Војводина' }, town: { native: 'Нови Сад', translit: 'Novi Sad', exonym: 'Neusatz' } },
  { country: C.ukraine, lat: 49.8397, lon: 24.0297, region: { latin: 'Lviv Oblast', local: 'Львівська область' }, town: { native: 'Львів', translit: 'Lviv', exonym: 'Lemberg' } },
  { country: C.ukraine, lat: 49.9935, lon: 36.2304, region: { latin: 'Kharkiv Oblast', local: 'Харківська область' }, town: { native: 'Харків', translit: 'Kharkiv', exonym: 'Kharkov' } },
  { country: C.russia, lat: 55.7963, lon: 49.1088, region: { latin: 'Tatarstan', local: 'Татарстан' }, town: { native: 'Зеленодольск', translit: 'Zelenodolsk' } },
  { country: C.russia, lat: 56.8389, lon: 60.6057, region: { latin: 'Sverdlovsk Oblast', local: 'Свердловская область' }, town: { native: 'Екатеринбург', translit: 'Yekaterinburg', exonym: 'Sverdlovsk' } },
  { country: C.greece, lat: 40.6401, lon: 22.9444, region: { latin: 'Central Macedonia', local: 'Κεντρική Μακεδονία' }, town: { native: 'Θεσσαλονίκη', translit: 'Thessaloniki', exonym: 'Salonica' } },
  { country: C.greece, lat: 38.2466, lon: 21.7346, region: { latin: 'Western Greece', local: 'Δυτική Ελλάδα' }, town: { native: 'Πάτρα', translit: 'Patra', exonym: 'Patras' } },
  { country: C.georgia, lat: 41.6938, lon: 44.8015, region: { latin: 'Tbilisi', local: 'თბილისი' }, town: { native: 'რუსთავი', translit: 'Rustavi' } },
  { country: C.georgia, lat: 42.2679, lon: 42.6946, region: { latin: 'Imereti', local: 'იმერეთი' }, town: { native: 'ქუთაისი', translit: 'Kutaisi' } },
  { country: C.israel, lat: 32.0853, lon: 34.7818, region: { latin: 'Tel Aviv District', local: 'מחוז תל אביב' }, town: { native: 'רמת גן', translit: 'Ramat Gan' } },
  { country: C.israel, lat: 32.794, lon: 34.9896, region: { latin: 'Haifa District', local: 'מחוז חיפה' }, town: { native: 'עכו', translit: 'Akko', exonym: 'Acre' } },
  { country: C.japan, lat: 43.0618, lon: 141.3545, region: { latin: 'Hokkaido', local: '北海道' }, town: { native: '小樽', translit: 'Otaru' } },
  { country: C.japan, lat: 35.0116, lon: 135.7681, region: { latin: 'Kyoto Prefecture', local: '京都府' }, town: { native: '大津', translit: 'Otsu' } },
  { country: C.china, lat: 30.5728, lon: 104.0668, region: { latin: 'Sichuan', local: '四川省' }, town: { native: '成都', translit: 'Chengdu' } },
  { country: C.china, lat: 34.3416, lon: 108.9398, region: { latin: 'Shaanxi', local: '陕西省' }, town: { native: '咸阳', translit: 'Xianyang' } },
  { country: C.korea, lat: 37.2636, lon: 127.0286, region: { latin: 'Gyeonggi Province', local: '경기도' }, town: { native: '수원', translit: 'Suwon' } },
  { country: C.korea, lat: 35.1796, lon: 129.0756, region: { latin: 'Busan', local: '부산광역시' }, town: { native: '김해', translit: 'Gimhae' } },
  { country: C.thailand, lat: 18.7883, lon: 98.9853, region: { latin: 'Chiang Mai Province', local: 'จังหวัดเชียงใหม่' }, town: { native: 'ลำพูน', translit: 'Lamphun' } },
  { country: C.egypt, lat: 30.0131, lon: 31.2089, region: { latin: 'Giza Governorate', local: 'محافظة الجيزة' }, town: { native: 'القاهرة', translit: 'al-Qahira', exonym: 'Cairo' } },
  { country: C.egypt, lat: 31.2001, lon: 29.9187, region: { latin: 'Alexandria Governorate', local: 'محافظة الإسكندرية' }, town: { native: 'الإسكندرية', translit: 'al-Iskandariyah', exonym: 'Alexandria' } },
  { country: C.brazil, lat: -19.9167, lon: -43.9345, region: { latin: 'Minas Gerais' }, town: { native: 'Contagem' } },
  { country: C.brazil, lat: -25.4284, lon: -49.2733, region: { latin: 'Paraná', local: 'Paraná' }, town: { native: 'São José dos Pinhais' } },
  { country: C.poland, lat: 50.0647, lon: 19.945, region: { latin: 'Lesser Poland Voivodeship', local: 'Województwo małopolskie' }, town: { native: 'Kraków', exonym: 'Cracow' } },
  { country: C.poland, lat: 54.352, lon: 18.6466, region: { latin: 'Pomeranian Voivodeship', local: 'Województwo pomorskie' }, town: { native: 'Gdańsk', exonym: 'Danzig' } },
  { country: C.germany, lat: 48.1351, lon: 11.582, region: { latin: 'Bavaria', local: 'Bayern' }, town: { native: 'München', exonym: 'Munich' } },
  { country: C.germany, lat: 50.9375, lon: 6.9603, region: { latin: 'North Rhine-Westphalia', local: 'Nordrhein-Westfalen' }, town: { native: 'Köln', exonym: 'Cologne' } },
  { country: C.france, lat: 43.6047, lon: 1.4442, region: { latin: 'Occitania', local: 'Occitanie' }, town: { native: 'Blagnac' } },
  { country: C.france, lat: 48.5734, lon: 7.7521, region: { latin: 'Grand Est' }, town: { native: 'Strasbourg', exonym: 'Straßburg' } },
  { country: C.france, lat: 43.5808, lon: 7.1251, region: { latin: "Provence-Alpes-Côte d'Azur" }, town: { native: 'Cannes' }, townWord: { word: 'nice', sentence: 'It is a nice sunny day with clear skies.' } },
  { country: C.uk, lat: 55.9533, lon: -3.1883, region: { latin: 'Scotland', local: 'Alba' }, town: { native: 'Dùn Èideann', translit: 'Dun Eideann', exonym: 'Edinburgh' } },
  { country: C.uk, lat: 51.1279, lon: 1.3134, region: { latin: 'England' }, town: { native: 'Folkestone' }, townWord: { word: 'deal', sentence: 'Fuel at the station looks like a good deal today.' } },
  { country: C.uk, lat: 51.411, lon: -0.8357, region: { latin: 'England' }, town: { native: 'Bracknell' }, townWord: { word: 'reading', sentence: 'Try reading the small print on the poster first.' } },
  { country: C.usa, lat: 38.8339, lon: -104.8214, region: { latin: 'Colorado' }, town: { native: 'Manitou Springs' } },
  { country: C.usa, lat: 30.6035, lon: -87.9036, region: { latin: 'Alabama' }, town: { native: 'Fairhope' }, townWord: { word: 'mobile', sentence: 'A pedestrian is talking on a mobile phone.' } },
  { country: C.canada, lat: 46.8139, lon: -71.208, region: { latin: 'Quebec', local: 'Québec' }, town: { native: 'Lévis' } },
  { country: C.canada, lat: 49.2827, lon: -123.1207, region: { latin: 'British Columbia', local: 'Colombie-Britannique' }, town: { native: 'Burnaby' } },
  { country: C.india, lat: 12.9716, lon: 77.5946, region: { latin: 'Karnataka', local: 'ಕರ್ನಾಟಕ' }, town: { native: 'ಬೆಂಗಳೂರು', translit: 'Bengaluru', exonym: 'Bangalore' } },
  { country: C.india, lat: 28.6139, lon: 77.209, region: { latin: 'Delhi', local: 'दिल्ली' }, town: { native: 'गुरुग्राम', translit: 'Gurugram', exonym: 'Gurgaon' } },
  { country: C.australia, lat: -27.4698, lon: 153.0251, region: { latin: 'Queensland' }, town: { native: 'Ipswich' } },
  { country: C.mexico, lat: 20.6597, lon: -103.3496, region: { latin: 'Jalisco' }, town: { native: 'Zapopan' } },
  { country: C.belgium, lat: 50.5891, lon: 5.8627, region: { latin: 'Wallonia', local: 'Wallonie' }, town: { native: 'Liège', exonym: 'Luik' }, townWord: { word: 'spa', sentence: 'The hotel on the corner advertises a spa and a sauna.' } },
  { country: C.croatia, lat: 43.5125, lon: 16.2517, region: { latin: 'Split-Dalmatia County', local: 'Splitsko-dalmatinska županija' }, town: { native: 'Kaštela' }, townWord: { word: 'split', sentence: 'The road ahead will split into two lanes.' } },
  { country: C.netherlands, lat: 52.0907, lon: 5.1214, region: { latin: 'Utrecht' }, town: { native: 'Zeist' } },
  { country: C.argentina, lat: -31.4201, lon: -64.1888, region: { latin: 'Córdoba Province', local: 'Provincia de Córdoba' }, town: { native: 'Villa Carlos Paz' } },
];

/** Far places a harness text may name on any task (a tip, an earlier example), with a point in each. */
export const ELSEWHERE: readonly { country: string; lat: number; lon: number }[] = [
  { country: 'Chile', lat: -33.4489, lon: -70.6693 },
  { country: 'Kenya', lat: -1.2921, lon: 36.8219 },
  { country: 'Norway', lat: 59.9139, lon: 10.7522 },
  { country: 'Peru', lat: -12.0464, lon: -77.0428 },
  { country: 'Indonesia', lat: -6.2088, lon: 106.8456 },
  { country: 'Morocco', lat: 33.5731, lon: -7.5898 },
  { country: 'New Zealand', lat: -36.8485, lon: 174.7633 },
  { country: 'Finland', lat: 60.1699, lon: 24.9384 },
];
