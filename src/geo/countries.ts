/**
 * The project's country table: every country or territory a point can resolve to, named by its
 * Natural Earth admin-0 ADMIN name (the name GeoGuesser task files use for `country`).
 *
 * Where the data comes from and why:
 * - ADMIN, continent and subregion: Natural Earth admin-0 countries. The 177 rows of the 1:110m set
 *   (shared/geo/ne_admin0_110m.tsv) are copied verbatim, except that the 2024 release the public
 *   project used renamed "Macedonia" and "Swaziland" to "North Macedonia" and "eSwatini" (the old
 *   names stay as former names). Small countries and territories the 1:110m set omits were completed
 *   from the 1:10m set (the 255 features of world-atlas countries-10m plus their NE attributes).
 * - Codes: ISO 3166-1 alpha-2/alpha-3; rows without ISO codes take Natural Earth's ADM0_A3 as alpha-3
 *   (FRA, NOR, KOS, CYN, SOL, ...) and have no alpha-2. `codes` lists further codes that resolve to
 *   the row: ISO codes of territories Natural Earth folds into it (Réunion RE/REU is "France").
 * - Names and demonyms: common English and Latin-script native names, Natural Earth's short labels
 *   (so world-atlas outlines join by name) and demonyms, for leak detection in prompts.
 */

export interface Country {
  /** Natural Earth admin-0 ADMIN name. */
  readonly admin: string;
  readonly iso2: string | null;
  /** ISO alpha-3, or Natural Earth's ADM0_A3 where ISO has none. */
  readonly iso3: string;
  /** Natural Earth CONTINENT (one of them is "Seven seas (open ocean)"). */
  readonly continent: string;
  /** Natural Earth SUBREGION, the unit of region hits. */
  readonly subregion: string;
  /** Further codes resolving to this row (folded territories, user-assigned codes). */
  readonly codes: readonly string[];
  /** Other names: short and formal names, native names, NE labels, former names, folded parts. */
  readonly names: readonly string[];
  readonly demonyms: readonly string[];
}

export interface Alias {
  readonly text: string;
  readonly kind: 'name' | 'code' | 'demonym';
}

/**
 * Former Natural Earth ADMIN names (older releases and the 1:110m TSV) still found in task files.
 */
const FORMER_ADMIN: Readonly<Record<string, string>> = {
  Macedonia: 'North Macedonia',
  Swaziland: 'eSwatini',
  'Czech Republic': 'Czechia',
  'Cape Verde': 'Cabo Verde',
  'Guinea Bissau': 'Guinea-Bissau',
  'West Bank': 'Palestine',
};

// One section per `# continent / subregion`; rows are
// ADMIN | iso2 | iso3 | extra codes | other names | demonyms   (lists separated by ";").
const TABLE = `
# Africa / Eastern Africa
Burundi|BI|BDI||Republic of Burundi|Burundian
Comoros|KM|COM||Union of the Comoros;the Comoros|Comoran;Comorian
Djibouti|DJ|DJI||Republic of Djibouti|Djiboutian
Eritrea|ER|ERI||State of Eritrea|Eritrean
Ethiopia|ET|ETH||Federal Democratic Republic of Ethiopia|Ethiopian
Kenya|KE|KEN||Republic of Kenya|Kenyan
Madagascar|MG|MDG||Republic of Madagascar|Malagasy;Madagascan
Malawi|MW|MWI||Republic of Malawi|Malawian
Mozambique|MZ|MOZ||Republic of Mozambique;Moçambique|Mozambican
Rwanda|RW|RWA||Republic of Rwanda|Rwandan;Rwandese
Somalia|SO|SOM||Federal Republic of Somalia|Somali;Somalian
Somaliland||SOL||Republic of Somaliland|Somalilander
South Sudan|SS|SSD|SDS|Republic of South Sudan;S. Sudan|South Sudanese
Uganda|UG|UGA||Republic of Uganda|Ugandan
United Republic of Tanzania|TZ|TZA||Tanzania|Tanzanian
Zambia|ZM|ZMB||Republic of Zambia|Zambian
Zimbabwe|ZW|ZWE||Republic of Zimbabwe|Zimbabwean

# Africa / Middle Africa
Angola|AO|AGO||Republic of Angola|Angolan
Cameroon|CM|CMR||Republic of Cameroon;Cameroun|Cameroonian
Central African Republic|CF|CAF||Central African Rep.;CAR;Centrafrique|Central African
Chad|TD|TCD||Republic of Chad;Tchad|Chadian
Democratic Republic of the Congo|CD|COD||Dem. Rep. Congo;DR Congo;DRC;D.R.C.;Congo-Kinshasa;Zaire|Congolese
Equatorial Guinea|GQ|GNQ||Eq. Guinea;Guinea Ecuatorial|Equatoguinean;Equatorial Guinean
Gabon|GA|GAB||Gabonese Republic|Gabonese
Republic of the Congo|CG|COG||Congo;Congo-Brazzaville;Congo Republic|Congolese
Sao Tome and Principe|ST|STP||São Tomé and Principe;São Tomé and Príncipe;São Tomé|Santomean;São Toméan

# Africa / Northern Africa
Algeria|DZ|DZA||People's Democratic Republic of Algeria;Algérie|Algerian
Egypt|EG|EGY||Arab Republic of Egypt;Misr|Egyptian
Libya|LY|LBY||State of Libya|Libyan
Morocco|MA|MAR||Kingdom of Morocco;Maroc|Moroccan
Sudan|SD|SDN||Republic of the Sudan;the Sudan|Sudanese
Tunisia|TN|TUN||Republic of Tunisia;Tunisie|Tunisian
Western Sahara|EH|ESH|SAH|W. Sahara;Sahrawi Arab Democratic Republic|Sahrawi;Sahrawian;Western Saharan

# Africa / Southern Africa
Botswana|BW|BWA||Republic of Botswana|Motswana;Batswana;Botswanan
eSwatini|SZ|SWZ||Eswatini;Swaziland;Kingdom of Eswatini|Swazi;Emaswati
Lesotho|LS|LSO||Kingdom of Lesotho|Mosotho;Basotho
Namibia|NA|NAM||Republic of Namibia|Namibian
South Africa|ZA|ZAF||Republic of South Africa;RSA;Suid-Afrika|South African

# Africa / Western Africa
Benin|BJ|BEN||Republic of Benin;Bénin|Beninese;Beninois
Burkina Faso|BF|BFA||Burkina|Burkinabé;Burkinabe
Cabo Verde|CV|CPV||Cape Verde;Republic of Cabo Verde|Cape Verdean;Cabo Verdean
Gambia|GM|GMB||The Gambia;Republic of The Gambia|Gambian
Ghana|GH|GHA||Republic of Ghana|Ghanaian
Guinea|GN|GIN||Republic of Guinea;Guinée;Guinea-Conakry|Guinean
Guinea-Bissau|GW|GNB||Guinea Bissau;Guiné-Bissau|Bissau-Guinean
Ivory Coast|CI|CIV||Côte d'Ivoire;Cote d'Ivoire;Côte d’Ivoire;Republic of Côte d'Ivoire|Ivorian
Liberia|LR|LBR||Republic of Liberia|Liberian
Mali|ML|MLI||Republic of Mali|Malian
Mauritania|MR|MRT||Islamic Republic of Mauritania;Mauritanie|Mauritanian
Niger|NE|NER||Republic of the Niger|Nigerien
Nigeria|NG|NGA||Federal Republic of Nigeria|Nigerian
Senegal|SN|SEN||Republic of Senegal;Sénégal|Senegalese
Sierra Leone|SL|SLE||Republic of Sierra Leone|Sierra Leonean
Togo|TG|TGO||Togolese Republic|Togolese

# Antarctica / Antarctica
Antarctica|AQ|ATA||Antarctic|Antarctic

# Asia / Central Asia
Baykonur Cosmodrome||KAB||Baikonur;Baikonur Cosmodrome|
Kazakhstan|KZ|KAZ||Republic of Kazakhstan;Qazaqstan|Kazakh;Kazakhstani
Kyrgyzstan|KG|KGZ||Kyrgyz Republic;Kirghizia|Kyrgyz;Kyrgyzstani
Tajikistan|TJ|TJK||Republic of Tajikistan|Tajik;Tajikistani
Turkmenistan|TM|TKM|||Turkmen
Uzbekistan|UZ|UZB||Republic of Uzbekistan;O'zbekiston|Uzbek;Uzbekistani

# Asia / Eastern Asia
China|CN|CHN||People's Republic of China;PRC;Mainland China;Zhongguo|Chinese
Hong Kong S.A.R.|HK|HKG||Hong Kong;Hong Kong SAR;HKSAR|Hongkonger;Hong Konger;Hongkongese
Japan|JP|JPN||Nippon;Nihon|Japanese
Macao S.A.R|MO|MAC||Macao;Macau;Macao SAR;Macau SAR|Macanese
Mongolia|MN|MNG||Mongol Uls|Mongolian
North Korea|KP|PRK||Democratic People's Republic of Korea;DPRK;DPR Korea|North Korean
South Korea|KR|KOR||Republic of Korea;Korea;ROK;Hanguk|South Korean;Korean
Taiwan|TW|TWN||Republic of China;ROC;Chinese Taipei;Formosa|Taiwanese

# Asia / South-Eastern Asia
Brunei|BN|BRN||Brunei Darussalam|Bruneian
Cambodia|KH|KHM||Kingdom of Cambodia;Kampuchea|Cambodian;Khmer
East Timor|TL|TLS||Timor-Leste;Timor Leste;Democratic Republic of Timor-Leste|Timorese;East Timorese
Indian Ocean Territories||IOA|CX;CXR;CC;CCK|Indian Ocean Ter.;Christmas Island;Cocos (Keeling) Islands;Cocos Islands;Keeling Islands|Christmas Islander;Cocos Islander
Indonesia|ID|IDN||Republic of Indonesia|Indonesian
Laos|LA|LAO||Lao PDR;Lao People's Democratic Republic;Lao|Laotian;Lao
Malaysia|MY|MYS|||Malaysian
Myanmar|MM|MMR||Burma;Republic of the Union of Myanmar|Burmese;Myanmarese;Myanma
Philippines|PH|PHL||Republic of the Philippines;Pilipinas;the Philippines|Filipino;Filipina;Philippine
Scarborough Reef||SCR||Scarborough Shoal;Huangyan Island|
Singapore|SG|SGP||Republic of Singapore;Singapura|Singaporean
Spratly Islands||PGA||Spratly Is.|
Thailand|TH|THA||Kingdom of Thailand;Siam;Prathet Thai|Thai
Vietnam|VN|VNM||Viet Nam;Socialist Republic of Vietnam|Vietnamese

# Asia / Southern Asia
Afghanistan|AF|AFG||Islamic Republic of Afghanistan|Afghan;Afghani
Bangladesh|BD|BGD||People's Republic of Bangladesh|Bangladeshi;Bengali
Bhutan|BT|BTN||Kingdom of Bhutan;Druk Yul|Bhutanese
India|IN|IND||Republic of India;Bharat|Indian
Iran|IR|IRN||Islamic Republic of Iran;Persia|Iranian;Persian
Nepal|NP|NPL||Federal Democratic Republic of Nepal|Nepali;Nepalese
Pakistan|PK|PAK||Islamic Republic of Pakistan|Pakistani
Siachen Glacier||KAS|||
Sri Lanka|LK|LKA||Ceylon;Democratic Socialist Republic of Sri Lanka|Sri Lankan

# Asia / Western Asia
Akrotiri Sovereign Base Area||WSB||Akrotiri|
Armenia|AM|ARM||Republic of Armenia;Hayastan|Armenian
Azerbaijan|AZ|AZE||Republic of Azerbaijan;Azərbaycan|Azerbaijani;Azeri
Bahrain|BH|BHR||Kingdom of Bahrain|Bahraini
Cyprus|CY|CYP||Republic of Cyprus;Kypros;Kıbrıs|Cypriot
Cyprus No Mans Area||CNM||Cyprus U.N. Buffer Zone;UN Buffer Zone in Cyprus|
Dhekelia Sovereign Base Area||ESB||Dhekelia|
Georgia|GE|GEO||Sakartvelo|Georgian
Iraq|IQ|IRQ||Republic of Iraq|Iraqi
Israel|IL|ISR||State of Israel|Israeli
Jordan|JO|JOR||Hashemite Kingdom of Jordan|Jordanian
Kuwait|KW|KWT||State of Kuwait|Kuwaiti
Lebanon|LB|LBN||Lebanese Republic;Liban|Lebanese
Northern Cyprus||CYN||N. Cyprus;Turkish Republic of Northern Cyprus;TRNC|Turkish Cypriot
Oman|OM|OMN||Sultanate of Oman|Omani
Palestine|PS|PSE|PSX|State of Palestine;Palestinian Territories;West Bank;Gaza Strip;Gaza|Palestinian
Qatar|QA|QAT||State of Qatar|Qatari
Saudi Arabia|SA|SAU||Kingdom of Saudi Arabia;KSA|Saudi;Saudi Arabian
Syria|SY|SYR||Syrian Arab Republic|Syrian
Turkey|TR|TUR||Türkiye;Turkiye;Republic of Türkiye|Turkish;Turk
United Arab Emirates|AE|ARE||UAE;U.A.E.;the Emirates|Emirati;Emirian
Yemen|YE|YEM||Republic of Yemen|Yemeni

# Europe / Eastern Europe
Belarus|BY|BLR||Republic of Belarus;Byelorussia;Belorussia|Belarusian;Belorussian
Bulgaria|BG|BGR||Republic of Bulgaria;Bulgariya|Bulgarian
Czechia|CZ|CZE||Czech Republic;Česko;Česká republika;Cesko|Czech
Hungary|HU|HUN||Magyarország;Magyarorszag|Hungarian;Magyar
Moldova|MD|MDA||Republic of Moldova|Moldovan
Poland|PL|POL||Republic of Poland;Polska|Polish
Romania|RO|ROU||România|Romanian
Russia|RU|RUS||Russian Federation;Rossiya;Rossiia|Russian
Slovakia|SK|SVK||Slovak Republic;Slovensko|Slovak;Slovakian
Ukraine|UA|UKR||Ukraina;the Ukraine|Ukrainian

# Europe / Northern Europe
Aland|AX|ALA||Åland;Åland Islands;Aland Islands;Ahvenanmaa|Ålander;Alander;Ålandic
Denmark|DK|DNK||Kingdom of Denmark;Danmark|Danish;Dane
Estonia|EE|EST||Republic of Estonia;Eesti|Estonian
Faroe Islands|FO|FRO||Faeroe Is.;Faeroe Islands;Faroes;Føroyar|Faroese
Finland|FI|FIN||Republic of Finland;Suomi|Finnish;Finn
Guernsey|GG|GGY||Bailiwick of Guernsey;Alderney;Sark|Guernsey islander;Guernésiais
Iceland|IS|ISL||Ísland|Icelandic;Icelander
Ireland|IE|IRL||Republic of Ireland;Éire;Eire|Irish
Isle of Man|IM|IMN||Ellan Vannin|Manx
Jersey|JE|JEY||Bailiwick of Jersey|Jersey islander;Jèrriais
Latvia|LV|LVA||Republic of Latvia;Latvija|Latvian
Lithuania|LT|LTU||Republic of Lithuania;Lietuva|Lithuanian
Norway|NO|NOR|SJ;SJM;BV;BVT|Kingdom of Norway;Norge;Noreg;Svalbard;Jan Mayen;Bouvet Island|Norwegian
Sweden|SE|SWE||Kingdom of Sweden;Sverige|Swedish;Swede
United Kingdom|GB|GBR|UK|UK;U.K.;Great Britain;Britain;United Kingdom of Great Britain and Northern Ireland;England;Scotland;Wales;Northern Ireland|British;Briton;English;Scottish;Scots;Welsh;Northern Irish

# Europe / Southern Europe
Albania|AL|ALB||Republic of Albania;Shqipëri;Shqipëria|Albanian
Andorra|AD|AND||Principality of Andorra|Andorran
Bosnia and Herzegovina|BA|BIH||Bosnia and Herz.;Bosnia;Bosnia-Herzegovina;BiH|Bosnian;Herzegovinian
Croatia|HR|HRV||Republic of Croatia;Hrvatska|Croatian;Croat
Gibraltar|GI|GIB|||Gibraltarian
Greece|GR|GRC||Hellenic Republic;Hellas;Ellada|Greek;Hellenic
Italy|IT|ITA||Italian Republic;Italia|Italian
Kosovo|XK|KOS|XKX|Republic of Kosovo;Kosova|Kosovar;Kosovan
Malta|MT|MLT||Republic of Malta|Maltese
Montenegro|ME|MNE||Crna Gora|Montenegrin
North Macedonia|MK|MKD||Macedonia;Republic of North Macedonia;FYROM;Severna Makedonija|Macedonian
Portugal|PT|PRT||Portuguese Republic;Azores;Madeira|Portuguese
Republic of Serbia|RS|SRB||Serbia;Srbija|Serbian;Serb
San Marino|SM|SMR||Republic of San Marino|Sammarinese
Slovenia|SI|SVN||Republic of Slovenia;Slovenija|Slovenian;Slovene
Spain|ES|ESP|EA;IC|Kingdom of Spain;España;Espana;Canary Islands;Ceuta;Melilla|Spanish;Spaniard
Vatican|VA|VAT||Vatican City;Holy See;Vatican City State|Vatican

# Europe / Western Europe
Austria|AT|AUT||Republic of Austria;Österreich;Osterreich|Austrian
Belgium|BE|BEL||Kingdom of Belgium;België;Belgique;Belgien|Belgian
France|FR|FRA|FX;GF;GUF;GP;GLP;MQ;MTQ;RE;REU;YT;MYT|French Republic;French Guiana;Guadeloupe;Martinique;Réunion;Reunion;Mayotte|French;Frenchman;Frenchwoman
Germany|DE|DEU||Federal Republic of Germany;Deutschland|German
Liechtenstein|LI|LIE||Principality of Liechtenstein|Liechtensteiner
Luxembourg|LU|LUX||Grand Duchy of Luxembourg;Lëtzebuerg;Luxemburg|Luxembourgish;Luxembourger
Monaco|MC|MCO||Principality of Monaco|Monégasque;Monegasque
Netherlands|NL|NLD|BQ;BES|Kingdom of the Netherlands;the Netherlands;Holland;Nederland;Caribbean Netherlands;Bonaire;Sint Eustatius;Saba|Dutch;Netherlander
Switzerland|CH|CHE||Swiss Confederation;Schweiz;Suisse;Svizzera;Confoederatio Helvetica|Swiss

# North America / Caribbean
Anguilla|AI|AIA|||Anguillan
Antigua and Barbuda|AG|ATG||Antigua and Barb.;Antigua|Antiguan;Barbudan
Aruba|AW|ABW|||Aruban
Bajo Nuevo Bank (Petrel Is.)||BJN||Bajo Nuevo Bank;Bajo Nuevo;Petrel Islands|
Barbados|BB|BRB|||Barbadian;Bajan
British Virgin Islands|VG|VGB||British Virgin Is.;Virgin Islands (British)|British Virgin Islander
Cayman Islands|KY|CYM||Cayman Is.|Caymanian
Cuba|CU|CUB||Republic of Cuba|Cuban
Curaçao|CW|CUW||Curacao|Curaçaoan;Curacaoan
Dominica|DM|DMA||Commonwealth of Dominica|Dominican
Dominican Republic|DO|DOM||Dominican Rep.;República Dominicana|Dominican
Grenada|GD|GRD|||Grenadian
Haiti|HT|HTI||Republic of Haiti;Haïti|Haitian
Jamaica|JM|JAM|||Jamaican
Montserrat|MS|MSR|||Montserratian
Puerto Rico|PR|PRI||Commonwealth of Puerto Rico|Puerto Rican;Boricua
Saint Barthelemy|BL|BLM||Saint Barthélemy;St-Barthélemy;St. Barts;St Barths;Saint-Barthélemy|Barthélemois
Saint Kitts and Nevis|KN|KNA||St. Kitts and Nevis;St Kitts and Nevis;Saint Christopher and Nevis|Kittitian;Nevisian
Saint Lucia|LC|LCA||St. Lucia;St Lucia|Saint Lucian
Saint Martin|MF|MAF||St-Martin;Saint-Martin;St. Martin|Saint-Martinoise
Saint Vincent and the Grenadines|VC|VCT||St. Vin. and Gren.;St. Vincent and the Grenadines;Saint Vincent|Vincentian
Serranilla Bank||SER||Serranilla|
Sint Maarten|SX|SXM||Sint Maarten (Dutch part)|Sint Maartener
The Bahamas|BS|BHS||Bahamas;Commonwealth of The Bahamas|Bahamian
Trinidad and Tobago|TT|TTO||Trinidad;Tobago|Trinidadian;Tobagonian
Turks and Caicos Islands|TC|TCA||Turks and Caicos Is.;Turks and Caicos|Turks and Caicos Islander
United States Virgin Islands|VI|VIR||U.S. Virgin Is.;US Virgin Islands;USVI;Virgin Islands (U.S.)|U.S. Virgin Islander
US Naval Base Guantanamo Bay||USG||USNB Guantanamo Bay;Guantanamo Bay Naval Base;Guantánamo Bay|

# North America / Central America
Belize|BZ|BLZ|||Belizean
Costa Rica|CR|CRI||Republic of Costa Rica|Costa Rican
El Salvador|SV|SLV||Republic of El Salvador|Salvadoran;Salvadorian
Guatemala|GT|GTM||Republic of Guatemala|Guatemalan
Honduras|HN|HND||Republic of Honduras|Honduran
Mexico|MX|MEX||México;United Mexican States;Estados Unidos Mexicanos|Mexican
Nicaragua|NI|NIC||Republic of Nicaragua|Nicaraguan
Panama|PA|PAN||Republic of Panama;Panamá|Panamanian

# North America / Micronesia
United States Minor Outlying Islands|UM|UMI||U.S. Minor Outlying Is.;US Minor Outlying Islands;Wake Island;Midway Atoll|

# North America / Northern America
Bermuda|BM|BMU|||Bermudian
Canada|CA|CAN|||Canadian
Greenland|GL|GRL||Kalaallit Nunaat;Grønland|Greenlandic;Greenlander
Saint Pierre and Miquelon|PM|SPM||St. Pierre and Miquelon;Saint-Pierre-et-Miquelon|Saint-Pierrais;Miquelonnais
United States of America|US|USA||United States;USA;U.S.A.;US;U.S.;America;the States;Alaska;Hawaii|American

# Oceania / Australia and New Zealand
Ashmore and Cartier Islands||ATC||Ashmore and Cartier Is.|
Australia|AU|AUS||Commonwealth of Australia;Tasmania|Australian;Aussie
Coral Sea Islands||CSI||Coral Sea Is.|
New Zealand|NZ|NZL|TK;TKL|Aotearoa;Tokelau|New Zealander;Kiwi
Norfolk Island|NF|NFK|||Norfolk Islander

# Oceania / Melanesia
Fiji|FJ|FJI||Republic of Fiji;Viti|Fijian
New Caledonia|NC|NCL||Nouvelle-Calédonie;Kanaky|New Caledonian;Caledonian
Papua New Guinea|PG|PNG||PNG;Papua Niugini|Papua New Guinean
Solomon Islands|SB|SLB||Solomon Is.;Solomons|Solomon Islander
Vanuatu|VU|VUT||Republic of Vanuatu|Ni-Vanuatu;Vanuatuan

# Oceania / Micronesia
Federated States of Micronesia|FM|FSM||Micronesia|Micronesian
Guam|GU|GUM||Guåhån|Guamanian
Kiribati|KI|KIR||Republic of Kiribati|I-Kiribati
Marshall Islands|MH|MHL||Marshall Is.;Republic of the Marshall Islands|Marshallese
Nauru|NR|NRU||Republic of Nauru|Nauruan
Northern Mariana Islands|MP|MNP||N. Mariana Is.;Northern Marianas;Saipan|Northern Mariana Islander
Palau|PW|PLW||Republic of Palau;Belau|Palauan

# Oceania / Polynesia
American Samoa|AS|ASM|||American Samoan
Cook Islands|CK|COK||Cook Is.|Cook Islander
French Polynesia|PF|PYF||Fr. Polynesia;Polynésie française;Tahiti|French Polynesian;Tahitian
Niue|NU|NIU|||Niuean
Pitcairn Islands|PN|PCN||Pitcairn Is.;Pitcairn|Pitcairn Islander
Samoa|WS|WSM||Independent State of Samoa;Western Samoa|Samoan
Tonga|TO|TON||Kingdom of Tonga|Tongan
Tuvalu|TV|TUV|||Tuvaluan
Wallis and Futuna|WF|WLF||Wallis and Futuna Is.;Wallis et Futuna|Wallisian;Futunan

# Seven seas (open ocean) / Eastern Africa
Mauritius|MU|MUS||Republic of Mauritius;Maurice|Mauritian
Seychelles|SC|SYC||Republic of Seychelles|Seychellois

# Seven seas (open ocean) / Seven seas (open ocean)
British Indian Ocean Territory|IO|IOT|DG|Br. Indian Ocean Ter.;Chagos Archipelago;Chagos Islands;Diego Garcia|Chagossian
Clipperton Island||CLP|CP|Clipperton I.;Île de Clipperton|
French Southern and Antarctic Lands|TF|ATF||Fr. S. Antarctic Lands;French Southern Territories;TAAF;Kerguelen Islands;Crozet Islands|
Heard Island and McDonald Islands|HM|HMD||Heard I. and McDonald Is.;Heard Island|

# Seven seas (open ocean) / South America
South Georgia and the Islands|GS|SGS||S. Geo. and the Is.;South Georgia and the South Sandwich Islands;South Georgia|

# Seven seas (open ocean) / Southern Asia
Maldives|MV|MDV||Republic of Maldives;the Maldives|Maldivian

# Seven seas (open ocean) / Western Africa
Saint Helena|SH|SHN|AC;ASC;TA;TAA|Saint Helena, Ascension and Tristan da Cunha;St Helena;Ascension Island;Tristan da Cunha|Saint Helenian

# South America / South America
Argentina|AR|ARG||Argentine Republic;the Argentine|Argentine;Argentinian;Argentinean
Bolivia|BO|BOL||Plurinational State of Bolivia|Bolivian
Brazil|BR|BRA||Federative Republic of Brazil;Brasil|Brazilian
Chile|CL|CHL||Republic of Chile|Chilean
Colombia|CO|COL||Republic of Colombia|Colombian
Ecuador|EC|ECU||Republic of Ecuador;Galápagos Islands|Ecuadorian;Ecuadorean
Falkland Islands|FK|FLK||Falkland Is.;Falklands;Islas Malvinas;Malvinas|Falkland Islander
Guyana|GY|GUY||Co-operative Republic of Guyana|Guyanese
Paraguay|PY|PRY||Republic of Paraguay|Paraguayan
Peru|PE|PER||Republic of Peru;Perú|Peruvian
Suriname|SR|SUR||Republic of Suriname;Surinam|Surinamese;Surinamer
Uruguay|UY|URY||Oriental Republic of Uruguay|Uruguayan
Venezuela|VE|VEN||Bolivarian Republic of Venezuela|Venezuelan
`;

interface Tables {
  readonly countries: readonly Country[];
  readonly byAdmin: ReadonlyMap<string, Country>;
  readonly byCode: ReadonlyMap<string, Country>;
  readonly byName: ReadonlyMap<string, Country>;
}

let tables: Tables | undefined;

function list(field: string | undefined): string[] {
  return field ? field.split(';').map((s) => s.trim()) : [];
}

/** Names compare case- and accent-insensitively ("Côte d'Ivoire" = "cote d’ivoire"). */
function nameKey(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[’‘`]/g, "'")
    .toLowerCase()
    .trim();
}

function load(): Tables {
  const countries: Country[] = [];
  let continent = '';
  let subregion = '';
  for (const line of TABLE.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('# ')) {
      [continent = '', subregion = ''] = line.slice(2).split(' / ');
      continue;
    }
    const [admin = '', iso2, iso3 = '', codes, names, demonyms] = line.split('|');
    countries.push({
      admin,
      iso2: iso2 || null,
      iso3,
      continent,
      subregion,
      codes: list(codes),
      names: list(names),
      demonyms: list(demonyms),
    });
  }
  // The order of `localeCompare(.., 'en')` (test/geo/countries.test.ts checks it is the same on
  // this table) without ICU's collator, whose first use costs some 6 ms of every process's start.
  const keys = new Map(countries.map((c) => [c, nameKey(c.admin)]));
  countries.sort((a, b) => {
    const [ka, kb] = [keys.get(a) as string, keys.get(b) as string];
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  const byAdmin = new Map(countries.map((c) => [c.admin, c]));
  for (const [former, admin] of Object.entries(FORMER_ADMIN)) byAdmin.set(former, byAdmin.get(admin) as Country);
  const byCode = new Map<string, Country>();
  const byName = new Map<string, Country>();
  for (const c of countries) {
    for (const code of [c.iso2, c.iso3, ...c.codes]) if (code) byCode.set(code, c);
    byName.set(keys.get(c) as string, c);
    for (const name of c.names) byName.set(nameKey(name), c);
  }
  return { countries, byAdmin, byCode, byName };
}

function getTables(): Tables {
  tables ??= load();
  return tables;
}

/** All rows, sorted by ADMIN name. */
export function allCountries(): readonly Country[] {
  return getTables().countries;
}

/** A row by its exact ADMIN name, or by a former ADMIN name ("Macedonia", "Swaziland"). */
export function countryByAdmin(admin: string): Country | null {
  return getTables().byAdmin.get(admin) ?? null;
}

/** A row by ISO alpha-2/alpha-3 (any case), Natural Earth ADM0_A3, or a folded territory's code. */
export function countryByIso(code: string): Country | null {
  return getTables().byCode.get(code.toUpperCase()) ?? null;
}

/** A row by any of its names (ADMIN, short, formal, native, NE label), ignoring case and accents. */
export function countryByName(name: string): Country | null {
  return getTables().byName.get(nameKey(name)) ?? null;
}

/**
 * The countries a user names by `text`: by one of its codes exactly, or by one of its names (ADMIN,
 * other and former names) or demonyms, ignoring case and accents: whole (`exact`, for a list of
 * countries to keep) or by its start (`prefix`, for a filter). So `serbia`, `RS` and `serbian` all
 * give "Republic of Serbia". More than one only where a spelling is shared ("Congolese", "Dominican")
 * or, by prefix, where several start alike. The one resolver of typed country names: the episode
 * filters and `splits build --countries` both use it.
 */
export function countriesNamed(text: string, match: 'exact' | 'prefix' = 'exact'): Country[] {
  const key = nameKey(text);
  if (key === '') return [];
  const byCode = countryByIso(text.trim());
  const matches = match === 'exact' ? (name: string) => nameKey(name) === key : (name: string) => nameKey(name).startsWith(key);
  return allCountries().filter((c) => c === byCode || spellingsOf(c).some(matches));
}

/** Every name and demonym of a row, former ADMIN names included (codes apart). */
function spellingsOf(c: Country): string[] {
  const formerAdmins = Object.keys(FORMER_ADMIN).filter((f) => FORMER_ADMIN[f] === c.admin);
  return [c.admin, ...c.names, ...formerAdmins, ...c.demonyms];
}

/** Every spelling `countriesNamed` knows, with its country's ADMIN name: the candidates of a "did you mean". */
export function countrySpellings(): { spelling: string; admin: string }[] {
  return allCountries().flatMap((c) => spellingsOf(c).map((spelling) => ({ spelling, admin: c.admin })));
}

/**
 * The names (ADMIN, other and former names) that countries named by `text` may be stored under: a
 * country is named by one of its codes exactly, or by the start of one of its names or demonyms.
 */
export function countryNamesFor(text: string): string[] {
  return [...new Set(countriesNamed(text, 'prefix').flatMap((c) => (aliasesOf(c.admin) ?? []).filter((a) => a.kind === 'name').map((a) => a.text)))];
}

/** Every way a prompt could name the country: names, codes and demonyms. Null for an unknown ADMIN. */
export function aliasesOf(admin: string): Alias[] | null {
  const c = countryByAdmin(admin);
  if (!c) return null;
  const formerAdmins = Object.keys(FORMER_ADMIN).filter((f) => FORMER_ADMIN[f] === c.admin);
  const names = [...new Set([c.admin, ...c.names, ...formerAdmins])];
  const codes = [c.iso2, c.iso3, ...c.codes].filter((code): code is string => code !== null);
  return [
    ...names.map((text) => ({ text, kind: 'name' as const })),
    ...codes.map((text) => ({ text, kind: 'code' as const })),
    ...c.demonyms.map((text) => ({ text, kind: 'demonym' as const })),
  ];
}
