// Word lists of English chapter titles (data only; titles.ts reads them): what a title never says, and the verbs and
// particles a noun phrase neither starts nor ends with. Lower case, one entry per word or phrase.

const words = (list: string): ReadonlySet<string> => new Set(list.split(/\s+/).filter(Boolean));

/**
 * Never in a title, anywhere in a phrase: forms of address (people.ts's TITLE_BEFORE), numbers, units, times and
 * transcript markers, and the roles and audience a hearing names in every turn ("Honourable member", "Prime Minister
 * call", "Canadians pockets", "Thirty hours", "per cent", "half past", "Laughter").
 */
export const NEVER_IN_TITLE = words(`
  mr mrs ms miss mx madam madame mister sir dame hon honourable honorable colleague colleagues gentleman gentlemen
  minister ministers chair chairman chairperson chairwoman canadians eleven twelve thirteen fourteen fifteen sixteen
  seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety million millions billion billions
  trillion dozen dozens half quarter percent percentage cent cents per euro euros pound pounds dollar dollars quid
  pence minute minutes hour hours week weeks weekend month months morning mornings afternoon evening tonight yesterday
  tomorrow monday tuesday wednesday thursday friday saturday sunday january february march april june july august
  september october november december laughter applause inaudible crosstalk
`);

/**
 * Never the head (last word) of a title phrase: roles, meeting words and collective nouns for the audience ("Prime
 * Minister", "Previous meeting", "Canadians", "committee members"). Also never the first word of a phrase that goes on
 * with a name only ("Minister Freeland").
 */
export const NEVER_TITLE_HEAD = words(`
  minister ministers member members chair chairman chairperson chairwoman chairs secretary president premier deputy
  senator senators witness witnesses committee committees meeting meetings agenda session sessions canadians folks
  everybody question questions answer answers comment comments remark remarks amount amounts bunch couple plenty
`);

/** Never a title by themselves (weak as the only word of a phrase): generic nouns ("Meeting and week", "Embedded training and system"). */
export const NEVER_ALONE = words(`
  system systems idea ideas problem problems issue issues example examples case cases fact facts number numbers aspect
  aspects sense matter reason reasons moment situation amount couple piece pieces side sides end level levels area
  areas option options step steps stage detail details term terms start topic topics subject list page bit course
  country government house parliament department ministry motion report bill designer manager expert
`);

/** Whole phrases that are no title: meeting roles, sides and the like (compared by lower-cased surface). */
export const NEVER_TITLE_PHRASES = words(`
  project_manager industrial_designer interface_designer user_interface_designer marketing_expert hand_side left_side
  right_side top_side bottom_side wide_range large_number small_number big_deal good_idea long_time
`);

/** A modifier that says nothing about the matter: a phrase it starts is the same phrase without it ("Different remote controls"). */
export const WEAK_MODIFIERS = words(`
  different various whole previous current certain particular specific real actual entire overall typical usual
  existing several separate simple basic normal regular additional extra important interesting main general whatever
  possible potential relevant appropriate proper major minor total
`);

/**
 * Words that are verbs far more often than nouns: a phrase never ends with one ("Landlords refuse"), and starts with one
 * only where a determiner or preposition stands before it ("the report", not "ask Jane", "impose conditions"). Base forms;
 * their -s, -ed and -ing forms are found by {@link verbBase}.
 */
export const VERBS = words(`
  accept achieve add address admit affect afford agree allow announce answer appear apply appreciate approach argue
  arrange arrive ask assume attach attempt attend avoid await become begin believe belong borrow bother bring build
  buy calculate care carry catch cause check choose claim clarify clean click close collect combine come commit
  compare complain complete concentrate concern confirm connect consider consist contain continue convince copy
  correct count create cut deal decide declare define delete deliver demand deny depend describe deserve determine
  develop die disagree discover discuss do drag draw drive drop earn eat emphasise emphasize enable encourage end
  engage enjoy ensure enter establish estimate evaluate examine exist expect explain explore express extend fail fall
  feel fight figure fill find finish fit fix focus follow forget forgive form gain gather generate get give go grab
  grow guarantee guess handle happen hate hear help hide hit hold hope hurt identify ignore illustrate imagine
  implement imply impose improve include increase indicate inform insist install intend introduce invest invite
  involve join judge jump justify keep kill know last launch lay lead learn leave lend let lie like listen live look
  lose love maintain make manage mean meet mention mind miss modify move need negotiate note notice obtain occur offer
  open operate order organise organize owe own pass pay perform pick place plan play point prefer prepare present
  press pretend prevent proceed produce promise propose protect prove provide publish pull purchase pursue push put
  question raise reach read realise realize receive recognise recognize recommend reduce refer reflect refuse reject
  relate rely remain remember remind remove repeat replace reply represent request require resolve respond rest return
  reveal review rise run save say see seek seem select sell send serve set settle share shift show shut sign sit solve
  sound speak spend stand start stay stick stop struggle submit succeed suffer suggest suppose surprise survive
  suspect swap switch take talk teach tell tend thank think throw tie tolerate touch track trade train transfer travel
  treat try turn type understand undo update upgrade urge use study detect predict analyse analyze compute transcribe
  synthesize synthesise vary visit vote wait walk want warn wash waste watch wear welcome win wish wonder work worry
  write
`);

/**
 * Verbs of {@link VERBS} that are at least as often the head of a noun phrase in speech ("remote control", "the design
 * change", "the last question"): never taken for a verb at the end of a phrase.
 */
export const VERB_NOUNS = words(`
  answer care cause check claim close copy cut deal drop end figure fit focus form guess handle help hit hope lead lie
  look love mind move need note offer order place plan play point question reply request rest return review rise run
  set share shift sign sound stand start stop switch talk touch track trade transfer turn type update upgrade use vote
  wait walk watch wish work concern increase estimate judge demand visit study
`);

/** Words that never start or end a title phrase: particles, adverbs and comparatives outside the stop words ("Forge ahead", "engineering versus"). */
export const NEVER_AT_EDGE = words(`
  ahead versus forward forwards backward backwards apart aside along alongside across beyond behind inside outside
  past besides instead ago anymore everywhere somewhere someplace anywhere elsewhere nowadays afterwards beforehand
  meanwhile indeed plus minus best better worse worst else whereas etc okay alright hopefully basically generally
  recently currently simply totally fully already sometimes again earlier later opposite inward inwards outward
  outwards upward upwards downward downwards looks regarding concerning including according following considering
  excluding works given taken shown done gone seen coming going happening getting doing saying trying looking thinking
  talking
`);

/** Words ending in -ly that are nouns or adjectives ("family", "early years"), not the adverbs a phrase never starts or ends with. */
export const LY_WORDS = words(`
  family supply assembly reply anomaly italy july ally rally monopoly fly butterfly jelly belly bully lily holly daily
  weekly monthly yearly early friendly lovely elderly lonely lively costly deadly orderly holy curly ugly silly
  assembly emily kelly billy sally molly polly wally ely only
`);

/** Nouns ending in -ing made from a verb of {@link VERBS} ("embedded training"): every other such -ing word ends no title phrase ("long lasting"). */
export const ING_NOUNS = words(`
  training meeting learning writing spending feeling drawing teaching building setting reading understanding beginning
  ending opening hearing finding recording printing listening saving selling buying reporting handling shipping
  painting offering warning booking planning processing housing funding marketing programming testing timing pricing
  rating ranking wedding
`);

/** Words ending in -ed that are nouns ("speed", "hundred"): every other -ed word ends no title phrase ("image based"). */
export const ED_WORDS = words(`
  hundred speed need seed bed feed red shed breed weed greed deed reed creed embed sled led bred wed ted ned fred ed
  med
`);

/** Forms of address before a name: a phrase said after one at least half of the times is a person ("Mr. Brassard"). */
export const ADDRESS = words(`
  mr mrs ms miss dr prof madam madame mister sir hon honourable honorable minister senator
`);

/** Words before a verb: a phrase they stand before at least half of the times it is said is led by a verb ("we impose", "can ask"). */
export const BEFORE_VERB = words(`
  i we you they he she to can could will would should must might may shall can't won't don't didn't doesn't wouldn't
  couldn't shouldn't let's please i'll we'll you'll they'll i'd we'd you'd they'd
`);

/** Words before a noun: a {@link VERBS} word they stand before at least half of the times is a noun there ("the report", "a copy"). */
export const BEFORE_NOUN = words(`
  the a an this these those my your our their his its her of in on with for from at by about into any each every some
  no another other whose
`);
