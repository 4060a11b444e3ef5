// The word lists key moments are chosen and typed by: data, read by the token walks of moments.ts and text.ts.
// A phrase is words separated by spaces, matched against lower-cased words: `*` matches any one word, `x*` a word
// starting with x, `*x` one ending with x, `<year>` a year from 1900 to 2099.

/** Hesitations: never words of a claim (a run of one letter counts once: "ummm" is "um", "hmmm" is "hm"). */
export const HESITATIONS = ['uh', 'um', 'uhm', 'er', 'erm', 'em', 'hm', 'm'];

/** Words said twice in a row that are not a stumble ("had had", a year read as "twenty twenty"). */
export const SAID_TWICE = [
  'had',
  ...'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred'.split(
    ' ',
  ),
];

/** Fillers and connectives a sentence may open with: dropped, the rest is still the speaker's sentence (every language). */
export const LEADING = [
  ...'so and but or well yeah yes no okay ok oh uh uhm um hm m anyway actually basically alright because cause cuz coz cos again'.split(' '),
  'once again',
  'i mean',
  'you know',
  'you see',
  'i see',
  'all right',
  ...'y pero pues bueno und aber also et mais alors bon donc e mas então ma allora quindi en maar dus nou'.split(' '),
  'na ja',
];

/** Fillers only with their comma: "Like, …", "Right, …", "Now, …" ("Like the minister, …", "Right now …" are words of the claim). */
export const LEADING_WITH_COMMA = ['like', 'right', 'now'];

/** Openers of a restart inside a sentence's first words ("I jus So the latest result …"): capitalised, they start it again. */
export const RESTART_OPENERS = ['so', 'and', 'but', 'well', 'okay', 'now', 'anyway', 'actually'];

/** How a speaker is addressed at the start of a turn in a hearing ("Mr. Chair,", "Mr.Chair,", "Madam Speaker,"): not a word of the claim. */
export const ADDRESS_TITLES = ['mr', 'mrs', 'ms', 'madam', 'madame', 'mister'];
export const ADDRESS_ROLES = [
  'chair',
  'chairman',
  'chairwoman',
  'chairperson',
  'speaker',
  'president',
  'deputy chair',
  'deputy speaker',
  'presiding officer',
  'deputy presiding officer',
  'cabinet secretary',
  'minister',
  'deputy minister',
  'colleagues',
];

/** Titles before a name that, ended by a colon inside a claim, mark another speaker's words ("Mr. Brian Masse: Not on …"). */
export const SPEAKER_TITLES = ['mr', 'mrs', 'ms', 'miss', 'dr', 'hon'];
/** Roles that, after "the" and ended by a colon, are a speaker's label ("The Chair: We go back …"). */
export const SPEAKER_ROLES = ['chair', 'acting chair', 'deputy chair', 'speaker', 'deputy speaker', 'clerk', 'presiding officer', 'deputy presiding officer'];

/** Openers that make a sentence lean on what came before: it cannot be cited alone. */
export const DANGLING: Record<string, readonly string[]> = {
  en: [
    'after that',
    'before that',
    'at that time',
    'at that point',
    'from that perspective',
    'in that case',
    'in that regard',
    'on that point',
    'for that reason',
    'because of that',
    'as a result',
    ...`he she it its it's this that these those they them their there here his her him which who then also such same other both either neither one ones
      we'd he's she's they're that's there's this's`.split(/\s+/),
  ],
  es: 'él ella ellos ellas esto eso esta este esa ese estos esos lo la le su sus entonces también'.split(' '),
  de: 'er sie es das dies diese dieser dieses dann auch ihr ihre sein seine deshalb daher'.split(' '),
  fr: 'il elle ils elles ce cela ça ceci cette ces son sa ses leur leurs alors aussi donc'.split(' '),
  pt: 'ele ela eles elas isso isto este esta esse essa seu sua então também'.split(' '),
  it: 'lui lei loro questo questa quello quella ciò suo sua allora anche quindi'.split(' '),
  nl: 'hij zij ze het dit dat deze die zijn haar hun dan ook daarom'.split(' '),
};

/** Openers of {@link DANGLING} that stand alone after all ("This week marks …", "One of the most …"). */
export const NOT_DANGLING = [
  ...'week year month morning afternoon evening weekend summer winter spring autumn fall country'.split(' ').map((w) => `this ${w}`),
  'these days',
  'one of the most',
  'one of the main',
  'one of the biggest',
];

/** A sentence opening with one of these is a question, not a claim (English). */
export const QUESTION_OPENERS = 'how what why where when who which do does did can could would should is are shall will'.split(' ');
/** A sentence opening with one of these and holding no comma is a bare subordinate clause (English). */
export const SUBORDINATORS = 'if when whether because although though unless while since as once'.split(' ');

/** Words a sentence does not open with when it is a claim: a comparison or an example before its main clause ("Like a normal cheap plastic case which …"), unless a comma closes it. */
export const FRAGMENT_OPENERS = ['like'];

/** Sentence adverbs read past before the dangling test ("Maybe this is …", "Probably the …" lean on what came before as "This is …" does). */
export const SENTENCE_ADVERBS = 'maybe perhaps probably possibly obviously basically clearly surely now'.split(' ');

/** A pointer and a word that names nothing, anywhere in a sentence ("Marcus is implementing that stuff"): it leans on what came before. */
export const DANGLING_ANYWHERE = [
  'that stuff',
  'this stuff',
  'that kind of stuff',
  'those things',
  'that thing',
  'that corner',
  'that value',
  'this value',
  // Pointing at the screen ("Click this button right here", "Up here in the Options bar"): nothing to see in a quote.
  'right here',
  'up here',
  'down here',
  'over here',
  'right there',
  'over there',
  'this here',
  'this image',
  'this photo',
  'this text',
  'this layer',
  'these layers',
  'this one',
];

/** Fillers a speaker ends a sentence with ("… part of the fruit and vegetables um.", "… yeah.", "… and Mmm."): dropped from its end; what is left must not end on a word that needs another. */
export const TRAILING_FILLERS = [
  'um',
  'uh',
  'uhm',
  'em',
  'mm',
  'mmm',
  'hmm',
  'yeah',
  'yep',
  'okay',
  'ok',
  'alright',
  'you know',
  'i guess',
  'i think',
  'or something',
  'or whatever',
];

/** Fillers inside a sentence that make it speech and not a quote ("… and they can find it through, you know, ten tons …", "… our image, okay, with …"). */
export const INNER_FILLERS = ['you know', 'i mean', 'sort of like', 'kind of like'];
/** Fillers inside a sentence with their comma ("… our image, okay, with …"). */
export const COMMA_FILLERS = ['okay', 'ok', 'yeah', 'alright', 'like'];
/** Words before "you know" that make it a clause of the sentence ("as you know", "do you know"). */
export const YOU_KNOW_CLAUSE = "as if do don't did didn't what whether that because so".split(' ');

/** Determiners that a noun phrase follows: one right before one of {@link NOT_AFTER_DETERMINER} or a comma is a phrase broken off ("with the with", "the, the", "the we'll"). */
export const DETERMINERS = 'the a an my our your their its'.split(' ');
export const NOT_AFTER_DETERMINER = `the a an my our your their its this that these those of with to in on at for from by and or but if whether
  i we you he she they it me us them is are was were be been am do does did we'll we're i'm you're they're it's`.split(/\s+/);

/** Words no finished English sentence ends on ("… you will just.", "… and."). */
export const NEEDS_ANOTHER = 'the a an and or but nor to of with for from by if than so just very my our your their its is are was were be the'.split(' ');

/** Short words a broken-off start may look like (English): never taken for a cut-off word. */
export const SHORT_WORDS = `a i an as at be by do go he if in is it me my no of on or so to up us we am ah oh ok hi yes the and for are but not you all any can
  had her was one our out day get has him his how man new now old see two way who boy did its let put say she too use car cat dog run big set
  top end far few got yet ago air art bad bag bed bit box bus buy cup cut ear eat egg eye fat fit fix fly fun gas god gun hat hit hot ice job key
  kid lab law lay leg lie lot low map mix net oil pay pen per pop raw red row sad sea sit six sky son sun tax tea ten tie tip toe try war web
  wet win yes able also area away back ball band bank base bear beat best bill bird blow blue boat body bone book born both call came card care
  case cell cent char chip city club code cold come cool copy core cost crew dark data date deal dear deep desk disk door down draw drop each
  east easy edge else even ever face fact fail fair fall farm fast fear feel file fill film find fine fire firm fish five flat flow food foot
  form four free from full fund gain game gave girl give glad goal goes gold gone good grow half hall hand hang hard have head hear heat held
  help here hide high hill hold hole home hope host hour huge idea into item join just keep kept kind king knew know lack lady laid land last
  late lead left less life lift like line link list live load loan lock long look lose loss lost love made main make male many mark mass meet
  mind mine miss mode more most move much must name near neck need news next nice nine none nose note once only open over page paid pain pair
  part pass past path peak pick plan play plot plus poll pool poor port post pull pure push race rain rate read real rely rest rich ride ring
  rise risk road rock role roll room rule rush safe said sale same save seat seek seem seen self sell send ship shop shot show shut side sign
  site size skin slow snow soft soil sold sole some song soon sort step stop such suit sure take tale talk tall task team tell tend term test
  text than that them then they thin this thus time tiny told tone took tool tour town tree trip true turn type unit upon used user vast very
  view vote wage wait walk wall want warm wash wave weak wear week well went were west what when whom wide wife wild will wind wine wing wire
  wise wish with wood word wore work yard yeah year your zero zone`.split(/\s+/);

/** Sponsor messages, greetings and sign-offs: said, but no moment anyone would cite (English). */
export const NOT_A_MOMENT = [
  'subscrib*',
  'sponsor*',
  'register at',
  'sign up',
  'check out',
  'head over',
  'head on over',
  'podcast app*',
  'welcome to the',
  'welcome to my',
  'welcome to our',
  "i'll invite",
  'i hope you',
  'my name is',
  'in this video',
  'in the next video',
  'in the last video',
  'in the previous video',
  'in the next lesson',
  'in this lesson',
  'in this tutorial',
  'in the next tutorial',
  'thanks for watching',
  'see you in',
  'next meeting',
  'see you next',
  'see you later',
  'thank you all',
  'thank you very much',
  'thank you for',
  'my guest on the show',
  'my guest today',
  'my guests today',
  'on the show today',
  'thank you to',
  'thank you mr',
  'thank you madam',
  'thank you chair',
  'i thank the',
];

/** The procedure of a meeting or a hearing: apologies, welcomes, the floor, petitions, calls to order (English). */
export const PROCEDURE = [
  'apologies for absence',
  'apologies from',
  'received apologies',
  'sent apologies',
  'pleased to welcome',
  'like to welcome',
  'delighted to welcome',
  'happy to welcome',
  'welcome everyone',
  'welcome back to',
  'has the floor',
  'have the floor',
  'give the floor',
  'present* * petition*',
  'present* petition*',
  'table* * petition*',
  'table* petition*',
  'table* e petition*',
  'rise to table',
  'rise today to table',
  'honour to table',
  'honour to present',
  'in both official languages',
  'petition signed by',
  'petition is from',
  'first petition',
  'second petition',
  'the petitioners',
  'petitioners call',
  'i call on',
  'call this meeting to order',
  'meeting to order',
  'hybrid meeting',
  'participating in person',
  'members participating',
  'the petition has',
  'video conference',
  'remarks through the chair',
  'earpieces',
  'standing order',
  'i will remind you',
  'like to remind you',
  'i remind you',
  'a reminder to',
  'honourable member for',
  'hon member for',
  'may i interrupt',
  'let you wrap up',
  "we'll go to",
  'we will go to',
  "we'll proceed to",
  'we will proceed to',
  'we will now proceed',
  'call upon the',
  'order order',
  'point of order',
  'remind members',
  'remind colleagues',
  'resume debate',
  'next question',
  'we now go to',
  'we will now go',
  "we'll now go",
  'we will now move',
  "we'll now move",
  'move on to item',
  'move to item',
  'item on the agenda',
  'declarations of interest',
  'declare any interest',
  'the meeting is',
  'the committee is adjourned',
  'meeting is adjourned',
  'your time is up',
  'the time is up',
];

/** Type cues (English): a sentence typed `prediction` holds one of these. */
export const PREDICTION = [
  'will be',
  'will have',
  'will become',
  'will happen',
  'will change',
  'will need',
  'will get',
  'will make',
  'will see',
  'will take',
  'will go',
  'will come',
  "won't",
  'is going to',
  'are going to',
  "*'re going to",
  "*'s going to",
  'predict',
  'prediction',
  'forecast',
  'expect to',
  'expected to',
  'in the future',
  'in the next',
  'in the coming',
  'by <year>',
  'by the end of',
  'next year',
  'next decade',
  'next generation',
  'bound to',
  'likely to',
  'sooner or later',
  'one day we',
];

/** A past-time anchor: a sentence typed `story` holds one (a year counts after "in" in a sentence with a past verb). */
export const STORY = [
  'years ago',
  'year ago',
  'decades ago',
  'months ago',
  'long ago',
  'a long time ago',
  'back in <year>',
  'back in the day',
  'back in the days',
  'back in those days',
  'back in the early',
  'back in the late',
  'back in school',
  'back in college',
  'back in university',
  ...'january february march april may june july august september october november december sixties seventies eighties nineties'
    .split(' ')
    .map((m) => `back in ${m.endsWith('ies') ? 'the ' : ''}${m}`),
  'back then',
  'back when',
  'at the time',
  'when i was',
  'when we were',
  'when i first',
  'i remember',
  'remember when',
  'i grew up',
  'the first time i',
  'i once',
  'once upon a time',
  'in those days',
  'in my childhood',
  'as a child',
  'as a kid',
  'when i was young',
  'i used to',
  'we used to',
  'i remembered',
];
/** "I remember" as a hedge, no past-time anchor ("… fifty percent worse, I think, if I remember."): a sentence holding one is no story by that cue. */
export const REMEMBER_HEDGES = ['if i remember', 'if i remember correctly', 'if i remember rightly', "if i'm remembering", 'as far as i remember', 'as i remember it'];

/** Months: "in October" anchors a story like a year, in a sentence with a past verb. */
export const MONTHS = 'january february march april may june july august september october november december'.split(' ');

/** A question asked of "you": answered by another speaker, it makes the answer `qa` whatever words they share (English). */
export const YOU = ['you', 'your', 'yours', "you're", "you've", "you'll", "you'd", 'yourself', 'yourselves'];

/** Disagreement (English): a sentence typed `debate` holds one of these and answers another speaker. */
export const DEBATE = [
  'i disagree',
  'we disagree',
  "i don't agree",
  'i do not agree',
  "we don't agree",
  'i would disagree',
  "i'd disagree",
  'i would argue',
  "i'd argue",
  "i'm not convinced",
  'i am not convinced',
  "i'm not sure that",
  "that's not true",
  "that's not right",
  "that's not the case",
  "that's not what",
  'that is not true',
  'that is not the case',
  'not necessarily',
  'on the contrary',
  'but the problem',
  'but the issue',
  "but that's not",
  "i don't think that's",
  "i don't think so",
  'with respect',
  'with all due respect',
];
/** Words a reply opens with that disagree on their own ("No, …"). */
export const DEBATE_OPENERS = ['no', 'nope'];

/** Evaluative words: a short sentence holding one is typed `quote`. */
export const EVALUATIVE = [
  ...`amazing awful brilliant crazy disaster disastrous disgraceful eternal excellent extraordinary fantastic fascinating horrible horrific incredible
    magic magical nightmare outrageous ridiculous shameful stunning superb terrible tragic tragedy unacceptable wonderful absurd appalling beautiful`.split(/\s+/),
  'the best',
  'the worst',
  'the greatest',
  'the biggest',
  'i love',
  'i hate',
  'i really love',
  'i really hate',
  'grateful',
  'never again',
];
/** Figures of speech: a sentence up to {@link QUOTE_FIGURATIVE_WORDS} long holding one is typed `quote`. */
export const FIGURATIVE = [
  'game changer',
  'battle for',
  'uphill battle',
  'the elephant in the room',
  'a drop in the bucket',
  'a drop in the ocean',
  'tip of the iceberg',
  'double edged sword',
  'silver bullet',
  'no brainer',
  'perfect storm',
  'light at the end of the tunnel',
  'the holy grail',
  'a level playing field',
  'move the needle',
  'moving the needle',
  'low hanging fruit',
  'the bottom line is',
  'a recipe for',
  'in the same boat',
  'the tail wagging the dog',
  'reinvent the wheel',
  'a slippery slope',
  'a wake up call',
  'a house of cards',
  'once said',
  'famously said',
  'the saying goes',
];
/** Longest sentence typed `quote` for an evaluative word, and for a figure of speech, in words. */
export const QUOTE_EVALUATIVE_WORDS = 20;
export const QUOTE_FIGURATIVE_WORDS = 25;

/** Wording that explains (English): a small bonus to a sentence's score. */
export const INSIGHT = [
  'the key is',
  'the key was',
  'the point is',
  'the point was',
  'the reason is',
  'the reason was',
  'the problem is',
  'the problem was',
  'the idea is',
  'the idea was',
  'the goal is',
  'the trick is',
  'the answer is',
  'because',
  'important',
  'means that',
  'it turns out',
  'the way to',
  "that's why",
  'which is why',
  'in fact',
  'the difference',
  'depends on',
];

/**
 * Finite verbs (English): auxiliaries, modals and the commonest verbs in their present and past forms (a base form
 * also stands for its `-s` form). A sentence with none of them, no contraction, no `-ed` word and no subject pronoun
 * followed by a word of its own is no claim.
 */
export const AUXILIARIES = "am is are was were has have had do does did can could will would shall should may might must ain't".split(' ');
export const VERBS = `accept achieve add agree allow announce appear apply argue arrive ask assume become begin believe belong bring build buy call care carry
  cause change charge check choose claim close come compare complain concern consider contain continue cost count cover create cut deal decide deliver
  depend deserve design destroy develop die disagree discover discuss drive drop eat end enjoy ensure enter exist expect explain face fail fall feel fight
  fill find finish fit fix follow forget form fund get give go grow happen hate hear help hit hold hope hurt identify imagine improve include increase
  indicate intend introduce invest involve join keep kill know lack last lead learn leave let lie like listen live look lose love make manage matter mean
  meet mention mind miss move need note notice offer open operate own pay pick plan play point prefer prepare present press prevent produce promise
  protect prove provide publish pull push put raise reach read realise realize receive recognise recognize recommend reduce refer reflect refuse relate
  rely remain remember remove repeat replace report represent require respond rest result return reveal rise risk run save say see seem sell send serve
  set share show sit sound speak spend stand start stay stop struggle study suffer suggest supply support suppose take talk teach tell tend thank think
  touch train travel treat try turn understand use vote wait walk want watch wear win wish wonder work worry write`.split(/\s+/);
export const PAST_VERBS = `arose ate became began bought brought built came caught chose did drove fell felt fought found forgot gave got grew had heard held
  hit kept knew laid led left lent let lost made meant met paid put quit ran rang read rose said sat saw sent set shook shot showed sold spent spoke
  stood stole struck swam taught thought threw told took understood was went were woke won wore wrote`.split(/\s+/);
/** Words ending in -ed that are no verb. */
export const NOT_PAST = 'hundred kindred sacred naked wicked wretched rugged ragged indeed shed bred sled bed red wed'.split(' ');
/** Contractions of "is" that are a verb, unlike a possessive ("the minister's"). */
export const CONTRACTED_IS = ["it's", "that's", "there's", "here's", "what's", "who's", "he's", "she's", "let's", "where's", "how's"];
/** Subject pronouns: followed by a word outside {@link CLOSED_CLASS}, that word is taken for a verb ("we launch", "they spend"). */
export const SUBJECTS = 'i we you they he she it who'.split(' ');
/** Determiners, prepositions, conjunctions, pronouns and adverbs that are never a verb. */
export const CLOSED_CLASS = `a an the this that these those my your our their his her its some any no every each all both either neither few many much more most
  of in on at to for with from by about into onto over under after before between through during without within against among
  and or but nor so yet if then than because although though while when where whether as
  i we you they he she it me us them him who whom whose which what
  also just only even still really actually very quite too already always never often sometimes usually not now here there`.split(/\s+/);
