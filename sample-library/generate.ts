// Writes the sample library (users, channels, facets, episodes) from the scripts below.
//
//   npx tsx sample-library/generate.ts
//
// The speech is written by hand; only the timings are computed: each word lasts
// 170 ms + 42 ms per letter (clamped to 200–900 ms), with pauses after commas
// (150 ms) and sentence ends (300 ms), 650 ms between turns and 3 s of intro.
// A chapter runs from its first turn's start to its last turn's end; a key moment
// covers the turn that follows its marker. The output is deterministic.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = dirname(fileURLToPath(import.meta.url));

type Line = [speaker: string, text: string] | { chapter: string } | { moment: [type: string, title: string] };

interface Script {
  id: string;
  channelId: string;
  title: string;
  description: string | null;
  publishedAt: string;
  status: 'pending' | 'processing' | 'indexed' | 'failed' | 'published' | 'archived';
  viewCount: number | null;
  topicIds: string[];
  personIds: string[];
  entityIds?: string[];
  collectionIds?: string[];
  error?: string;
  /** null: no transcript yet. */
  lines: Line[] | null;
  file: string;
}

const users = [
  { id: 'u_maya', name: 'Maya Okafor', plan: 'paid' },
  { id: 'u_theo', name: 'Theo Lind', plan: 'free' },
  { id: 'u_member', name: 'Priya Nair (member of both channels)', plan: 'paid' },
  { id: 'u_outsider', name: 'Sam Porter (member of no channel)', plan: 'paid' },
];

const channels = [
  {
    id: 'ch_long-field',
    slug: 'long-field',
    title: 'The Long Field',
    providerType: 'rss',
    ownerId: 'u_maya',
    memberIds: ['u_maya', 'u_member'],
    customDomain: 'longfield.example.org',
  },
  {
    id: 'ch_build-notes',
    slug: 'build-notes',
    title: 'Build Notes',
    providerType: 'youtube',
    ownerId: 'u_theo',
    memberIds: ['u_theo', 'u_member'],
  },
];

const topics = [
  { id: 'tp_land', name: 'Land and property' },
  { id: 'tp_credit', name: 'Rural credit' },
  { id: 'tp_water', name: 'Water' },
  { id: 'tp_energy', name: 'Energy' },
  { id: 'tp_soil', name: 'Soil health' },
  { id: 'tp_food-prices', name: 'Food prices' },
  { id: 'tp_trade', name: 'Trade policy' },
  { id: 'tp_testing', name: 'Testing' },
  { id: 'tp_search', name: 'Search' },
  { id: 'tp_operations', name: 'Operations' },
  { id: 'tp_hiring', name: 'Hiring' },
];

const people = [
  { id: 'pe_maya-okafor', name: 'Maya Okafor' },
  { id: 'pe_samuel-reyes', name: 'Samuel Reyes' },
  { id: 'pe_anjali-deshpande', name: 'Anjali Deshpande' },
  { id: 'pe_tom-whitaker', name: 'Tom Whitaker' },
  { id: 'pe_lena-fischer', name: 'Lena Fischer' },
  { id: 'pe_theo-lind', name: 'Theo Lind' },
  { id: 'pe_ines-duarte', name: 'Ines Duarte' },
  { id: 'pe_grace-mwangi', name: 'Grace Mwangi' },
  { id: 'pe_daniel-osei', name: 'Daniel Osei' },
];

const entities = [
  { id: 'en_postgres', name: 'PostgreSQL' },
  { id: 'en_opensearch', name: 'OpenSearch' },
];

const collections = [
  { id: 'cl_land-and-water', name: 'Land and water', channelId: 'ch_long-field' },
  { id: 'cl_infrastructure', name: 'Infrastructure', channelId: 'ch_build-notes' },
];

const MAYA = 'Maya Okafor';
const THEO = 'Theo Lind';

const scripts: Script[] = [
  {
    id: 'ep_lf_001',
    file: 'lf-001-land-titles.json',
    channelId: 'ch_long-field',
    title: 'Who owns the farm? Land titles and credit',
    description: 'The agricultural economist Samuel Reyes on why a clean land title can be worth more to a small farmer than the land itself, and why digitising records is not enough.',
    publishedAt: '2023-03-14T06:00:00Z',
    status: 'published',
    viewCount: 18_240,
    topicIds: ['tp_land', 'tp_credit'],
    personIds: ['pe_maya-okafor', 'pe_samuel-reyes'],
    collectionIds: ['cl_land-and-water'],
    lines: [
      { chapter: 'Cold open' },
      [MAYA, "Welcome to The Long Field. I'm Maya Okafor. Today we are talking about something that sounds dull and turns out to decide almost everything on a farm: who holds the paper that says the land is yours. My guest is Samuel Reyes, an agricultural economist who has spent fifteen years studying land records. Samuel, welcome."],
      ['Samuel Reyes', "Thanks, Maya. It's good to be here, and I promise the paperwork gets exciting."],
      { chapter: 'Why a title is worth more than the land' },
      [MAYA, 'Let us start with the basic claim. You argue that a clean land title is worth more to a small farmer than the land itself. What do you mean by that?'],
      { moment: ['insight', 'A clean land title turns a field into collateral, and farmers with clear titles pay about half the interest of their neighbours'] },
      ['Samuel Reyes', "I mean that land without a clear title is dead capital. You can farm it, but you can't borrow against it, you can't sell it easily, and you can't rent it out without worrying that the tenant will claim it. Once the title is clear, the same field becomes collateral. A bank will lend against it at a fraction of the interest a moneylender charges. In our surveys, farmers with clear titles paid roughly half the interest of their neighbours on the same road."],
      [MAYA, 'Half. That is a big number for something as boring as a registry.'],
      ['Samuel Reyes', 'It is, and the registry is exactly where the trouble starts.'],
      { chapter: 'A story from the registry office' },
      { moment: ['story', 'A farmer made eleven trips to the registry office to correct one misspelled letter in his land record'] },
      ['Samuel Reyes', "Let me tell you about a farmer I met, I'll call him Ravi. His grandfather's name was misspelled on the land record, one letter wrong. To fix it he needed an affidavit, two witnesses, a surveyor's visit and a stamp from an office two hours away by bus. He made eleven trips. Each trip cost him a day of work and the bus fare. By the end he had spent more than the correction was worth on paper, but without it he could not get a crop loan, so he kept going."],
      [MAYA, 'Eleven trips for one letter.'],
      ['Samuel Reyes', 'One letter. And Ravi was lucky, because nobody else was claiming the field.'],
      [MAYA, 'What happens when someone is?'],
      ['Samuel Reyes', 'Then it goes to court, and land cases in many countries take a decade or more. The field sits idle, or worse, both families farm it badly because neither expects to keep it.'],
      { chapter: 'What would actually help' },
      { moment: ['qa', 'Does digitising land records fix disputed titles?'] },
      [MAYA, "So the obvious question from listeners: doesn't digitising the records fix this?"],
      { moment: ['quote', 'A database copies the errors of the paper record faithfully, only faster'] },
      ['Samuel Reyes', 'Digitising helps with speed, but it copies the errors faithfully. If the paper record was wrong, the database is now wrong faster. What helps is a field survey that checks the records against the ground, done village by village, with the neighbours present, so that disputes come out once and get settled once.'],
      [MAYA, "Samuel Reyes, thank you. That's it for this episode of The Long Field."],
    ],
  },
  {
    id: 'ep_lf_002',
    file: 'lf-002-groundwater.json',
    channelId: 'ch_long-field',
    title: 'Water tables and the price of free electricity',
    description: 'The hydrologist Anjali Deshpande explains how free power for farm pumps drains aquifers, and a pilot that pays farmers for the electricity they do not use.',
    publishedAt: '2023-05-02T06:00:00Z',
    status: 'published',
    viewCount: 25_310,
    topicIds: ['tp_water', 'tp_energy'],
    personIds: ['pe_maya-okafor', 'pe_anjali-deshpande'],
    collectionIds: ['cl_land-and-water'],
    lines: [
      { chapter: 'The pump that never stops' },
      [MAYA, "This is The Long Field, I'm Maya Okafor. In parts of western India, electricity for farm pumps is free or nearly free. That sounds generous. My guest, the hydrologist Anjali Deshpande, says it is quietly emptying the aquifers. Anjali, explain the mechanism."],
      ['Anjali Deshpande', 'When power is free, the cost of pumping one more hour of water is zero for the farmer. So pumps run whenever the grid is on, often at night, often longer than the crop needs. Every farmer is doing the sensible thing for himself, and together they lower the water table by a metre or two a year in some districts.'],
      [MAYA, 'A metre a year.'],
      ['Anjali Deshpande', 'In the worst blocks, yes. Twenty years ago a well of thirty metres was enough. Now people are drilling three hundred metres and hitting water that is older than the pyramids and sometimes full of fluoride.'],
      { chapter: 'Should farmers pay for power?' },
      { moment: ['debate', 'Metering farm pumps would save groundwater but would hurt the poorest farmers first'] },
      [MAYA, "So the economist's answer is to charge for electricity. I can already hear the objection."],
      ['Anjali Deshpande', 'And the objection is fair. If you simply put a meter on every pump, the small farmer with a shallow well pays the bill and the large farmer with a deep borewell shrugs. The poorest get hurt first, and no government survives that.'],
      [MAYA, "So what's the alternative?"],
      { moment: ['insight', 'Paying farmers for the electricity they do not use turns saved water into income without raising anyone’s bill'] },
      ['Anjali Deshpande', "One idea that has worked in pilots is to pay farmers for the power they don't use. You give each pump a fixed allowance. If the farmer uses less, the utility buys the saved units back at a good price. Suddenly water saved is money earned, and nobody's bill goes up."],
      { chapter: 'Where this is heading' },
      { moment: ['prediction', 'Without a change in power pricing, several districts will run out of usable groundwater within fifteen years'] },
      ['Anjali Deshpande', 'If nothing changes, I expect several districts to run out of usable groundwater within fifteen years. Not a gradual decline, a cliff, because when the deep aquifer fails there is nothing below it.'],
      { moment: ['qa', 'Can farmers switch from sugarcane and rice to crops that need less water?'] },
      [MAYA, 'Can farmers just switch crops? Millet instead of sugarcane?'],
      ['Anjali Deshpande', 'They can, and many want to, but the guaranteed purchase prices favour rice and cane. Change the prices the government pays and the crops change within two seasons. Farmers respond to prices faster than any policy paper.'],
      [MAYA, 'Anjali Deshpande, thank you for coming on The Long Field.'],
    ],
  },
  {
    id: 'ep_lf_003',
    file: 'lf-003-soil.json',
    channelId: 'ch_long-field',
    title: 'Soil is a balance sheet',
    description: 'Nebraska farmer Tom Whitaker on the storm that washed away his topsoil, cover crops, no-till, and when it started to pay.',
    publishedAt: '2023-08-21T06:00:00Z',
    status: 'published',
    viewCount: 9_870,
    topicIds: ['tp_soil', 'tp_land'],
    personIds: ['pe_maya-okafor', 'pe_tom-whitaker'],
    collectionIds: ['cl_land-and-water'],
    lines: [
      { chapter: 'Meet Tom' },
      [MAYA, 'Welcome back to The Long Field. My guest today farms twelve hundred acres of corn and soybeans in eastern Nebraska. Tom Whitaker, thanks for taking a break from the planter.'],
      ['Tom Whitaker', 'Happy to. It rained this morning, so you got lucky.'],
      { chapter: 'The year the topsoil left' },
      [MAYA, 'You told me before we started that one storm changed how you farm.'],
      { moment: ['story', 'One spring storm washed an inch of topsoil off a freshly tilled field in a single night'] },
      ['Tom Whitaker', "It did. Spring of twenty twelve, we'd tilled a field on a slope, nice and clean the way my dad liked it. That night we got three inches of rain in two hours. The next morning the ditch at the bottom was full of black mud. That was our topsoil. An inch of it, gone in one night. It took nature a few hundred years to build that inch."],
      [MAYA, 'What did you do?'],
      ['Tom Whitaker', 'Stopped tilling that field, for a start. Then I planted cereal rye as a cover crop after harvest so the ground is never bare over winter.'],
      { chapter: 'Accounting for dirt' },
      [MAYA, 'You describe soil as a balance sheet. Walk me through that.'],
      { moment: ['insight', 'Soil organic matter behaves like equity: it builds slowly, and it can be spent quickly without anyone noticing'] },
      ['Tom Whitaker', "Think of organic matter as equity. Every year you either add to it or draw it down. Tillage is a withdrawal. Cover crops and leaving the residue are deposits. The trouble is that the account statement arrives twenty years late. You can run down soil for a decade and your yields look fine, because you're spending the savings. Then one dry year it shows."],
      [MAYA, 'And does it pay, in plain money?'],
      { moment: ['quote', 'The first three years of cover crops cost money; after that the fuel bill fell by a third'] },
      ['Tom Whitaker', "The first three years, honestly, no. Seed for the cover crop costs money and yields dipped a little. Since then my fuel bill is down by a third, fertiliser is down, and in the drought of twenty twenty-two my no-till fields held water when my neighbour's cracked."],
      [MAYA, 'Tom Whitaker, thank you.'],
    ],
  },
  {
    id: 'ep_lf_004',
    file: 'lf-004-food-prices.json',
    channelId: 'ch_long-field',
    title: 'Why food prices spike twice',
    description: 'Commodity analyst Lena Fischer on the second, fear-driven price spike after a bad harvest, export bans, and grain reserves.',
    publishedAt: '2024-01-09T06:00:00Z',
    status: 'published',
    viewCount: 31_002,
    topicIds: ['tp_food-prices', 'tp_trade'],
    personIds: ['pe_maya-okafor', 'pe_lena-fischer'],
    lines: [
      { chapter: 'Two spikes, not one' },
      [MAYA, 'This is The Long Field. When a harvest fails, food prices rise. That part everyone knows. My guest, the commodity analyst Lena Fischer, says prices usually spike twice, and the second spike hurts more. Lena, welcome.'],
      ['Lena Fischer', 'Thank you. The first spike is the harvest itself: less wheat, higher price. The second spike comes months later and it is mostly fear. Governments see prices rising and ban exports to protect their own consumers. Traders hoard. Importers panic and buy at any price. In two thousand eight, rice prices nearly tripled although global rice stocks were not especially low.'],
      { chapter: 'Export bans' },
      [MAYA, 'So export bans make it worse.'],
      { moment: ['insight', 'An export ban protects one country’s consumers by exporting the price spike to everyone else'] },
      ['Lena Fischer', "For the world, almost always. An export ban protects your consumers by exporting the price spike to everybody else. And it teaches importing countries that they can't rely on trade, so next time they hoard earlier, and the spiral gets faster."],
      { moment: ['qa', 'Why do governments not keep bigger grain reserves?'] },
      [MAYA, "Why don't countries just keep bigger grain reserves?"],
      ['Lena Fischer', 'Reserves are expensive. Grain rots, storage costs money, and a reserve that is never used looks like waste to a finance ministry. The smart version is a small reserve plus a credible promise not to ban exports, made together with your neighbours.'],
      { chapter: 'What comes next' },
      { moment: ['prediction', 'Droughts hitting two breadbaskets in the same year will become more frequent this decade'] },
      ['Lena Fischer', 'My worry for this decade is correlated shocks. One breadbasket failing is manageable. Two failing in the same year, say a drought in the Black Sea region and a heat wave in South Asia, that I expect to see more often, and our trading system was built assuming it was rare.'],
      [MAYA, "Any advice for listeners who aren't running a ministry?"],
      { moment: ['quote', 'Watch the export ban announcements, not the harvest reports'] },
      ['Lena Fischer', 'Watch the export ban announcements, not the harvest reports. They tell you about the second spike before it arrives.'],
      [MAYA, 'Lena Fischer, thank you.'],
    ],
  },
  {
    id: 'ep_lf_005',
    file: 'lf-005-mailbag.json',
    channelId: 'ch_long-field',
    title: 'Mailbag: tractors, subsidies and a correction',
    description: 'An early listener-mail episode, since withdrawn.',
    publishedAt: '2022-11-02T06:00:00Z',
    status: 'archived',
    viewCount: 2_115,
    topicIds: ['tp_land'],
    personIds: ['pe_maya-okafor'],
    lines: [
      { chapter: 'Your letters' },
      { moment: ['qa', 'Do tractor subsidies help small farmers?'] },
      [MAYA, "Hello and welcome to a mailbag episode of The Long Field. I'm Maya Okafor, and this week I'm answering your letters. The first one comes from a listener in Kenya who asks whether tractor subsidies help small farmers. Short answer: they help the farmers who can already afford half a tractor. A rental market does more, because a farmer with two acres needs a tractor for three days a year, not a tractor of her own."],
      { chapter: 'A correction' },
      [MAYA, "Second, a correction. In our episode on rice prices I said that India exports a fifth of the world's rice. The correct figure at the time was closer to forty percent. Thank you to the several listeners who wrote in, some of them quite politely. That's all for this mailbag. Keep the letters coming."],
    ],
  },
  {
    id: 'ep_lf_006',
    file: 'lf-006-cold-storage.json',
    channelId: 'ch_long-field',
    title: 'Cold storage and the onion crisis',
    description: 'Draft: recording scheduled.',
    publishedAt: '2024-06-01T06:00:00Z',
    status: 'pending',
    viewCount: null,
    topicIds: ['tp_food-prices'],
    personIds: ['pe_maya-okafor'],
    lines: null,
  },
  {
    id: 'ep_bn_001',
    file: 'bn-001-flaky-tests.json',
    channelId: 'ch_build-notes',
    title: 'Flaky tests are a design smell',
    description: 'Ines Duarte, who ran test infrastructure at a payments company, on where flaky tests come from and whether retries are a cure or a painkiller.',
    publishedAt: '2023-09-05T16:00:00Z',
    status: 'published',
    viewCount: 4_410,
    topicIds: ['tp_testing'],
    personIds: ['pe_theo-lind', 'pe_ines-duarte'],
    lines: [
      { chapter: 'Intro' },
      [THEO, "Hi, this is Build Notes. I'm Theo Lind. Today my guest is Ines Duarte, who ran test infrastructure at a payments company, and we're talking about flaky tests. Ines, what's your hot take?"],
      ['Ines Duarte', "My hot take is that a flaky test is usually telling the truth. It's not the test that's flaky, it's the system that has a race in it, and the test is the only one honest enough to say so."],
      { chapter: 'Where flakiness comes from' },
      [THEO, 'Where does it usually come from, in your experience?'],
      { moment: ['insight', 'Flaky tests come from three places: time, order and shared state'] },
      ['Ines Duarte', 'Three places. Time, order and shared state. Time means the test sleeps for two hundred milliseconds and hopes the job is done. Order means test B only passes if test A ran first and left a row in the database. Shared state means two tests write the same file or the same queue. Fix those three and most of the flakiness is gone.'],
      { moment: ['story', 'A payment test failed once a week because two test files shared one queue name'] },
      ['Ines Duarte', "We had one test that failed maybe once a week. It took us a month to find. Two test files used the same queue name, and when the runner put them in parallel, one test consumed the other test's messages. The fix was one line: give every test its own queue name."],
      [THEO, 'One line, one month.'],
      ['Ines Duarte', "That's the usual exchange rate."],
      { chapter: 'Retries: yes or no' },
      { moment: ['debate', 'Automatic test retries keep a team shipping but let race conditions reach production'] },
      [THEO, "So let's argue. Automatic retries in the test runner. I think they're fine, as long as you track them."],
      ['Ines Duarte', "And I think they're a painkiller. The team ships, nobody feels the pain, and the race condition goes to production. If you retry, at least fail the build when the same test needs a retry twice in a week."],
      [THEO, 'I can live with that compromise. Ines Duarte, thank you for coming on Build Notes.'],
    ],
  },
  {
    id: 'ep_bn_002',
    file: 'bn-002-search-engine.json',
    channelId: 'ch_build-notes',
    title: 'Choosing a search engine for a small team',
    description: 'Grace Mwangi on when database full-text search is enough, when to move to a search engine, reindexing behind aliases, and hybrid keyword plus vector search.',
    publishedAt: '2023-11-14T16:00:00Z',
    status: 'published',
    viewCount: 7_925,
    topicIds: ['tp_search'],
    personIds: ['pe_theo-lind', 'pe_grace-mwangi'],
    entityIds: ['en_postgres', 'en_opensearch'],
    collectionIds: ['cl_infrastructure'],
    lines: [
      { chapter: 'The question' },
      [THEO, 'Welcome to Build Notes. My guest is Grace Mwangi, who builds search for a small podcast startup. Grace, a listener asks: we have fifty thousand documents, do we need a real search engine, or is the database enough?'],
      ['Grace Mwangi', "For fifty thousand documents, start with your database. Postgres full text search will carry you further than people think. You get stemming, ranking and phrase queries, and you don't run a second system."],
      { chapter: 'When to move' },
      { moment: ['qa', 'When should a small team move from database full-text search to a dedicated search engine?'] },
      [THEO, 'So when do you move?'],
      ['Grace Mwangi', "When you need things the database does badly. Fuzzy matching for typos, faceted counts over many fields, highlighting, or semantic search with vectors at scale. Or when your search queries start slowing down the writes. That's the moment we moved to OpenSearch."],
      [THEO, 'And was it worth it?'],
      { moment: ['insight', 'Index aliases let you rebuild a search index in the background and switch to it without downtime'] },
      ['Grace Mwangi', 'Yes, but budget for it. A search cluster is a pet. You need to think about mappings, reindexing without downtime, and keeping it in sync with the database. We use aliases, so a reindex builds a new index in the background and swaps the alias in one step.'],
      { chapter: 'Keyword plus vectors' },
      { moment: ['prediction', 'Within two years hybrid keyword and vector search will be the default even for small teams'] },
      ['Grace Mwangi', "The interesting part now is hybrid search. Keyword search is precise, vectors understand that car and vehicle are related. You run both and fuse the rankings. I expect that within two years hybrid will simply be the default, even for small teams, because the models got small enough to run on a laptop."],
      [THEO, 'Any warning?'],
      { moment: ['quote', 'A demo query always works; evaluate search with real queries from your users'] },
      ['Grace Mwangi', 'Evaluate with real queries from your users. A demo query always works.'],
      [THEO, 'Grace Mwangi, thanks.'],
    ],
  },
  {
    id: 'ep_bn_003',
    file: 'bn-more.jsonl',
    channelId: 'ch_build-notes',
    title: 'Backups you have actually restored',
    description: 'A short one: the nightly dump that wrote empty files for six weeks, and the restore drills that replaced hope.',
    publishedAt: '2024-02-20T16:00:00Z',
    status: 'processing',
    viewCount: 1_203,
    topicIds: ['tp_operations'],
    personIds: ['pe_theo-lind'],
    entityIds: ['en_postgres'],
    collectionIds: ['cl_infrastructure'],
    lines: [
      { chapter: 'The rule' },
      { moment: ['story', 'A nightly database backup wrote empty files for six weeks because the script ignored a full disk'] },
      [THEO, "This is Build Notes, a short one today. The rule is simple: a backup you have never restored is not a backup, it's a hope. Last month we found out that our nightly database dump had been writing empty files for six weeks, because a disk filled up and the script ignored the error."],
      { chapter: 'What we changed' },
      { moment: ['insight', 'Restore the backup every night automatically, and once a quarter by hand from the written runbook'] },
      [THEO, "Here is what we changed. First, the backup script now fails loudly: any error stops it and pages someone. Second, every night a separate job restores the latest dump into a scratch database and runs a handful of checks, row counts and a few known records. Third, once a quarter a person, not a script, does a full restore by following the written runbook, and fixes the runbook wherever it's wrong. That last one sounds old-fashioned, but it's the only way to know the instructions still work when the person who wrote them is on holiday."],
    ],
  },
  {
    id: 'ep_bn_004',
    file: 'bn-more.jsonl',
    channelId: 'ch_build-notes',
    title: 'Hiring your first engineer',
    description: 'Daniel Osei, first-engineer hirer at three startups, on generalists, paid work samples and what puzzles do not tell you.',
    publishedAt: '2024-04-02T16:00:00Z',
    status: 'indexed',
    viewCount: 3_318,
    topicIds: ['tp_hiring'],
    personIds: ['pe_theo-lind', 'pe_daniel-osei'],
    lines: [
      { chapter: 'Generalist or specialist' },
      [THEO, 'Build Notes, and today is about hiring. Daniel Osei has hired the first engineer at three startups. Daniel, generalist or specialist?'],
      { moment: ['insight', 'A startup’s first engineer should be a generalist who enjoys unglamorous work'] },
      ['Daniel Osei', 'Generalist, almost always. Your first engineer will set up the build, answer a support ticket, fix the billing bug and write the onboarding docs, all in one week. A brilliant specialist who only wants to tune the database will be unhappy, and so will you.'],
      { chapter: 'The interview' },
      { moment: ['qa', 'What should an interview for a first engineer actually test?'] },
      [THEO, 'What does your interview look like?'],
      ['Daniel Osei', 'A paid half day working on a real, small problem from our backlog, with me pairing. I learn how they ask questions, how they handle a vague requirement, and whether they write down what they did. Puzzles tell me nothing about that.'],
      [THEO, "Paid, even for people you don't hire?"],
      { moment: ['quote', 'Pay candidates for the work sample, especially the ones you do not hire'] },
      ['Daniel Osei', "Especially for them. It's their time, and word gets around."],
    ],
  },
  {
    id: 'ep_bn_005',
    file: 'bn-more.jsonl',
    channelId: 'ch_build-notes',
    title: 'Live Q&A (recording)',
    description: null,
    publishedAt: '2024-05-07T16:00:00Z',
    status: 'failed',
    error: 'Audio could not be decoded: unsupported codec in the uploaded file.',
    viewCount: null,
    topicIds: [],
    personIds: ['pe_theo-lind'],
    lines: null,
  },
];

interface Word {
  t: string;
  s: number;
  e: number;
}

function build(script: Script) {
  const segments: { speakerLabel: string; startMs: number; endMs: number; text: string; words: Word[] }[] = [];
  const chapters: { title: string; startMs: number; endMs: number; moments: { type: string; title: string; startMs: number; endMs: number }[] }[] = [];
  let t = 3000;
  let pendingMoments: [string, string][] = [];
  for (const line of script.lines ?? []) {
    if ('chapter' in line) {
      chapters.push({ title: line.chapter, startMs: -1, endMs: -1, moments: [] });
      continue;
    }
    if ('moment' in line) {
      pendingMoments.push(line.moment);
      continue;
    }
    const [speaker, text] = line;
    const words: Word[] = [];
    for (const token of text.split(/\s+/)) {
      const letters = token.replace(/[^\p{L}\p{N}]/gu, '').length;
      const duration = Math.min(900, Math.max(200, 170 + 42 * letters));
      words.push({ t: token, s: t, e: t + duration });
      t += duration + (/[.?!]$/.test(token) ? 300 : /[,;:]$/.test(token) ? 150 : 20);
    }
    const seg = { speakerLabel: speaker, startMs: words[0]!.s, endMs: words.at(-1)!.e, text, words };
    segments.push(seg);
    const chapter = chapters.at(-1)!;
    if (chapter.startMs < 0) chapter.startMs = seg.startMs;
    chapter.endMs = seg.endMs;
    for (const [type, title] of pendingMoments) chapter.moments.push({ type, title, startMs: seg.startMs, endMs: seg.endMs });
    pendingMoments = [];
    t = seg.endMs + 650;
  }
  const durationMs = script.lines ? segments.at(-1)!.endMs + 2000 : null;
  const number = script.id.slice(-3);
  const youtube = script.channelId === 'ch_build-notes';
  const videoId = `bn${number}Xq7Lk`.slice(0, 11).padEnd(11, '0');
  return {
    id: script.id,
    channelId: script.channelId,
    title: script.title,
    description: script.description,
    publishedAt: script.publishedAt,
    durationMs,
    status: script.status,
    viewCount: script.viewCount,
    mediaUrl: youtube ? `https://www.youtube.com/watch?v=${videoId}` : `https://media.example.org/long-field/episode-${number}.mp3`,
    link: youtube ? null : `https://longfield.example.org/shownotes/${number}`,
    thumbnail: youtube ? `https://i.ytimg.com/vi/${videoId}/hqdefault.jpg` : null,
    summary: script.description ? (script.description.length > 120 ? `${script.description.slice(0, 117).trimEnd()}…` : script.description) : null,
    ...(script.error ? { error: script.error } : {}),
    topicIds: script.topicIds,
    personIds: script.personIds,
    entityIds: script.entityIds ?? [],
    collectionIds: script.collectionIds ?? [],
    chapters: script.lines ? chapters : null,
    transcript: script.lines ? { formatVersion: 1, segments } : null,
  };
}

/** Pretty at the top, one segment per line: readable in a diff, and small. */
function pretty(episode: ReturnType<typeof build>): string {
  const { transcript, ...rest } = episode;
  const head = JSON.stringify(rest, null, 2).replace(/\n}$/, '');
  if (!transcript) return `${head},\n  "transcript": null\n}\n`;
  const segs = transcript.segments.map((s) => `      ${JSON.stringify(s)}`).join(',\n');
  return `${head},\n  "transcript": {\n    "formatVersion": 1,\n    "segments": [\n${segs}\n    ]\n  }\n}\n`;
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
writeFileSync(join(OUT, 'users.json'), json(users));
writeFileSync(join(OUT, 'channels.json'), json(channels));
writeFileSync(join(OUT, 'topics.json'), json(topics));
writeFileSync(join(OUT, 'people.json'), json(people));
writeFileSync(join(OUT, 'entities.json'), json(entities));
writeFileSync(join(OUT, 'collections.json'), json(collections));
const episodesDir = join(OUT, 'episodes');
mkdirSync(episodesDir, { recursive: true });
for (const f of readdirSync(episodesDir)) rmSync(join(episodesDir, f));
const jsonl = new Map<string, string[]>();
for (const script of scripts) {
  const episode = build(script);
  if (script.file.endsWith('.jsonl')) jsonl.set(script.file, [...(jsonl.get(script.file) ?? []), JSON.stringify(episode)]);
  else writeFileSync(join(episodesDir, script.file), pretty(episode));
}
for (const [file, lines] of jsonl) writeFileSync(join(episodesDir, file), `${lines.join('\n')}\n`);
process.stdout.write(`wrote ${scripts.length} episodes to ${episodesDir}\n`);
