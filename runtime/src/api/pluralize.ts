// Kubernetes resource plurals exactly as kubebuilder computes them: flect's Pluralize applied to the
// lower-cased kind (gobuffalo/flect v1.0.x rules), so `Policy` → `policies`, `Redis` → `redis`,
// `Index` → `indices`. Kind names are single words once lower-cased, so only the last-word rules matter.
// The one pluraliser of opgen: the runtime's groupVersion().kind() uses it for a kind declared without
// a plural, and the CLI (CRD names, scaffolding, OLM) imports it as `@opgen/runtime/pluralize`, so an
// operator's client asks for the very resource its CRD serves. It depends on nothing.

/** Irregular words: [singular, plural, flags]. 'exact' words match only as the whole word, not as a suffix;
 * 'oneway' plurals are not recognised as already plural. Order matters for the suffix rules below. */
type Flag = 'exact' | 'oneway';
const IRREGULAR: ReadonlyArray<readonly [string, string, ...Flag[]]> = [
  ['aircraft', 'aircraft'], ['beef', 'beef'], ['bison', 'bison'], ['blues', 'blues', 'oneway'],
  ['chassis', 'chassis'], ['deer', 'deer'], ['fish', 'fish'], ['moose', 'moose'], ['police', 'police'],
  ['salmon', 'salmon'], ['series', 'series'], ['sheep', 'sheep'], ['shrimp', 'shrimp'], ['species', 'species'],
  ['swine', 'swine'], ['trout', 'trout'], ['tuna', 'tuna'], ['you', 'you'],
  ['child', 'children'], ['ox', 'oxen', 'exact'],
  ['foot', 'feet'], ['goose', 'geese'], ['man', 'men'], ['human', 'humans'], ['louse', 'lice', 'exact'],
  ['mouse', 'mice'], ['tooth', 'teeth'], ['woman', 'women'],
  ['die', 'dice', 'exact'], ['person', 'people'],
  ['adieu', 'adieux'], ['fabliau', 'fabliaux'], ['bureau', 'bureaus'],
  ['criterion', 'criteria'], ['ganglion', 'ganglia'], ['lexicon', 'lexica'], ['mitochondrion', 'mitochondria'],
  ['noumenon', 'noumena'], ['phenomenon', 'phenomena'], ['taxon', 'taxa'],
  ['media', 'media'], ['medium', 'media', 'oneway'], ['stadium', 'stadiums'], ['aquarium', 'aquaria'],
  ['auditorium', 'auditoria'], ['symposium', 'symposia'], ['curriculum', 'curriculums'], ['quota', 'quotas'],
  ['alumnus', 'alumni'], ['bacillus', 'bacilli'], ['cactus', 'cacti'], ['coccus', 'cocci'], ['focus', 'foci'],
  ['locus', 'loci'], ['nucleus', 'nuclei'], ['octopus', 'octupuses'], ['radius', 'radii'], ['syllabus', 'syllabi'],
  ['corpus', 'corpora'], ['genus', 'genera'],
  ['alumna', 'alumnae'], ['vertebra', 'vertebrae'], ['differentia', 'differentiae'], ['minutia', 'minutiae'],
  ['vita', 'vitae'], ['larva', 'larvae'], ['postcava', 'postcavae'], ['praecava', 'praecavae'], ['uva', 'uvae'],
  ['apex', 'apices'], ['codex', 'codices'], ['index', 'indices'], ['latex', 'latices'], ['vertex', 'vertices'],
  ['vortex', 'vortices'],
  ['appendix', 'appendices'], ['radix', 'radices'], ['helix', 'helices'],
  ['axis', 'axes', 'exact'], ['crisis', 'crises'], ['ellipsis', 'ellipses', 'oneway'], ['genesis', 'geneses'],
  ['oasis', 'oases'], ['thesis', 'theses'], ['testis', 'testes'], ['base', 'bases'], ['basis', 'bases', 'oneway'],
  ['alias', 'aliases', 'exact'], ['vedalia', 'vedalias'],
  ['use', 'uses', 'exact'], ['abuse', 'abuses'], ['cause', 'causes'], ['clause', 'clauses'], ['cruse', 'cruses'],
  ['excuse', 'excuses'], ['fuse', 'fuses'], ['house', 'houses'], ['misuse', 'misuses'], ['muse', 'muses'],
  ['pause', 'pauses'], ['ache', 'aches'], ['topaz', 'topazes'], ['buffalo', 'buffaloes'], ['potato', 'potatoes'],
  ['tomato', 'tomatoes'],
  ['equipment', 'equipment'], ['information', 'information'], ['jeans', 'jeans'], ['money', 'money'],
  ['news', 'news'], ['rice', 'rice'],
  ['dwarf', 'dwarfs'], ['hoof', 'hoofs'], ['thief', 'thieves'], ['chive', 'chives'], ['hive', 'hives'],
  ['move', 'moves'], ['movie', 'movies'], ['cookie', 'cookies'], ['pretorium', 'pretoriums'], ['agenda', 'agendas'],
  ['formula', 'formulas'], ['shoe', 'shoes'], ['toe', 'toes', 'exact'], ['graffiti', 'graffiti'],
  // flect's upper-case abbreviation entries (ID → IDs, S → Ses) cannot match a lower-cased kind.
];

/** Plurals that also count as "already plural" (alternatives in flect's dictionary). */
const ALTERNATIVE_PLURALS = [
  'beefs', 'fishes', 'salmons', 'shrimps', 'swines', 'trouts', 'tunas', 'adieus', 'bureaux', 'ganglions',
  'lexicons', 'mitochondrions', 'stadia', 'aquariums', 'auditoriums', 'symposiums', 'curricula', 'alumnuses',
  'cactuses', 'focuses', 'locuses', 'nucleuses', 'octopi', 'radiuses', 'corpuses', 'apexes', 'codexes',
  'indexes', 'latexes', 'vertexes', 'vortexes', 'appendixes', 'radixes', 'helixes', 'buffalos', 'dwarves',
  'hooves', 'formulae',
];

/** Suffix rules in priority order: [singular suffix, plural suffix]. */
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ['tive', 'tives'], ['eaf', 'eaves'], ['oaf', 'oaves'], ['afe', 'aves'], ['arf', 'arves'], ['rfe', 'rves'],
  ['rf', 'rves'], ['lf', 'lves'], ['fe', 'ves'],
  ['ay', 'ays'], ['ey', 'eys'], ['oy', 'oys'], ['quy', 'quies'], ['uy', 'uys'], ['y', 'ies'],
  ['eau', 'eaux'],
  ['bula', 'bulae'], ['dula', 'bulae'], ['lula', 'bulae'], ['nula', 'bulae'], ['vula', 'bulae'],
  ['hedron', 'hedra'],
  ['ium', 'ia'], ['seum', 'seums'], ['eum', 'ea'], ['oum', 'oa'], ['stracum', 'straca'], ['dum', 'da'],
  ['elum', 'ela'], ['ilum', 'ila'], ['olum', 'ola'], ['ulum', 'ula'], ['llum', 'lla'], ['ylum', 'yla'],
  ['imum', 'ima'], ['ernum', 'erna'], ['gnum', 'gna'], ['brum', 'bra'], ['crum', 'cra'], ['terum', 'tera'],
  ['serum', 'sera'], ['trum', 'tra'], ['antum', 'anta'], ['atum', 'ata'], ['entum', 'enta'], ['etum', 'eta'],
  ['itum', 'ita'], ['otum', 'ota'], ['utum', 'uta'], ['ctum', 'cta'], ['ovum', 'ova'],
  ['trix', 'trices'],
  ['iasis', 'iases'], ['mesis', 'meses'], ['kinesis', 'kineses'], ['resis', 'reses'], ['gnosis', 'gnoses'],
  ['opsis', 'opses'], ['ysis', 'yses'],
  ['ouse', 'ouses'], ['lause', 'lauses'], ['us', 'uses'],
  ['ch', 'ches'], ['io', 'ios'], ['sh', 'shes'], ['ss', 'sses'], ['ez', 'ezzes'], ['iz', 'izzes'], ['tz', 'tzes'],
  ['zz', 'zzes'], ['ano', 'anos'], ['lo', 'los'], ['to', 'tos'], ['oo', 'oos'], ['o', 'oes'], ['x', 'xes'],
];

/**
 * flect's acronyms. flect matches suffix rules against the word's upper-cased form when the word is an
 * acronym, so no lower-case rule applies: `api` → `apis`, `ssh` → `sshs`.
 */
const ACRONYMS = new Set(
  ('OK UTF8 HTML JSON JWT ID UUID SQL ACK ACL ADSL AES ANSI API ARP ATM BGP BSS CCITT CHAP CIDR CIR CLI CPE CPU ' +
    'CRC CRT CSMA CMOS DCE DEC DES DHCP DNS DRAM DSL DSLAM DTE DMI EHA EIA EIGRP EOF ESS FCC FCS FDDI FTP GBIC ' +
    'GEPOF HDLC HTTP HTTPS IANA ICMP IDF IDS IEEE IETF IMAP IP IPS ISDN ISP LACP LAN LAPB LAPF LLC MAC MC MDF MIB ' +
    'MPLS MTU NAC NAT NBMA NIC NRZ NRZI NVRAM OSI OSPF OUI PAP PAT PC PIM PCM PDU POP3 POTS PPP PPTP PTT PVST RAM ' +
    'RARP RFC RIP RLL ROM RSTP RTP RCP SDLC SFD SFP SLARP SLIP SMTP SNA SNAP SNMP SOF SRAM SSH SSID STP SYN TDM ' +
    'TFTP TIA TOFU UDP URL URI USB UTP VC VLAN VLSM VPN W3C WAN WEP WPA WWW').split(' '),
);

interface Rule { suffix: string; plural?: string }

const wholeWord = new Map<string, string>();
const knownPlurals = new Set<string>(ALTERNATIVE_PLURALS);
/**
 * Suffix rules in the order they are tried: irregular (non-exact) words first, last-listed first, then the
 * suffix table. Each rule is preceded by its plural ending with no replacement, so a word that already
 * ends like a plural (e.g. `...ies`) stays as it is.
 */
const rules: Rule[] = [];

for (const [singular, plural, ...flags] of IRREGULAR) {
  wholeWord.set(singular, plural);
  if (!flags.includes('oneway')) knownPlurals.add(plural);
}
for (const [singular, plural, ...flags] of [...IRREGULAR].reverse()) {
  if (flags.includes('exact')) continue;
  rules.push({ suffix: plural }, { suffix: singular, plural });
}
for (const [singular, plural] of SUFFIXES) rules.push({ suffix: plural }, { suffix: singular, plural });

/** The Kubernetes plural of a kind: lower-cased, then pluralised by kubebuilder's (flect's) rules. */
export function pluralize(kind: string): string {
  const word = kind.toLowerCase();
  if (word === '') return '';
  const whole = wholeWord.get(word);
  if (whole !== undefined) return whole;
  if (knownPlurals.has(word)) return word;
  if (ACRONYMS.has(word.toUpperCase())) {
    // flect turns a lower-cased acronym ending in 's' (dns) into garbage (`dnsDNSes`); we add 'es' instead.
    return word.endsWith('s') ? `${word}es` : `${word}s`;
  }
  for (const rule of rules) {
    if (!word.endsWith(rule.suffix)) continue;
    return rule.plural === undefined ? word : word.slice(0, word.length - rule.suffix.length) + rule.plural;
  }
  return word.endsWith('s') ? word : `${word}s`;
}
