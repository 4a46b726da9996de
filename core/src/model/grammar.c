/*
 * An English-like corpus from a seeded probabilistic grammar (softscope.h,
 * ss_grammar_text): the language view's default text, so that a small
 * character model has structure to learn (spelling, agreement, word order,
 * punctuation) without a corpus file.
 *
 *   text      = paragraph ...          (a paragraph: 3-7 sentences, then '\n')
 *   sentence  = clause "."             (45%)
 *             | opener ", " clause "." (15%: "Yesterday, ...")
 *             | "When " clause ", " clause "."            (10%)
 *             | clause ", " (and|but|so|while) clause "."  (30%)
 *   clause    = NP(number) VP(number, tense)   (one tense per sentence:
 *                                               present 55%, past 45%)
 *   NP        = name (10%, singular)
 *             | det adj{0,1,2} noun [PP] [that VP]   (plural 35%; PP 15%
 *               and relative clause 12%, each once per nesting level at most)
 *   VP        = [adv] tverb NP [PP] [adv]   (60%; the relative clause in
 *                                            the sentence's tense)
 *             | iverb [PP] [adv]            (40%)
 *   PP        = prep NP
 * with agreement (a singular subject takes the verb's -s form in the
 * present, a plural one the base form; determiners agree in number; "an"
 * before a vowel), the first letter of a sentence capitalised, names
 * capitalised. Vocabulary: ~310 lemmas in the tables below.
 *
 * Characters: lowercase and capital ASCII letters, ' ', ',', '.', '\n'
 * only. Sentences are separated by one space or, at a paragraph's end, by
 * '\n' alone. Every choice is a Philox draw of (seed, stream 0, index i)
 * taken in order (four 32-bit words per block): the text of a seed is one
 * stream whose first len bytes are the output, so a shorter call returns a
 * prefix of a longer one, the same in every build (integer arithmetic).
 *
 * Measured over 1 MB (seeds 1, 2, 3; tests/c/test_model_text.c checks
 * ranges): 47 distinct characters, unigram character entropy H1 = 3.01
 * nats, conditional bigram entropy H(c_t | c_{t-1}) = 2.31 nats (for
 * comparison, English text: ~2.9 and ~2.3 nats). The words themselves come
 * from ~310 lemmas, so a character model that has learnt the spelling
 * pays mostly for the word choices.
 */
#include "common/rng.h"
#include "model/tasks.h"

typedef struct {
  uint64_t seed, index;
  uint32_t w[4];
  unsigned avail;
  char *out;
  size_t len, pos;
  bool cap; /* capitalise the next letter */
} gen;

static uint32_t draw(gen *g, uint32_t m) {
  if (g->avail == 0) ss_philox_block(g->seed, 0, g->index++, g->w), g->avail = 4;
  return ss_task_below(g->w[--g->avail], m);
}
static bool chance(gen *g, uint32_t percent) { return draw(g, 100) < percent; }

static void put(gen *g, char c) {
  if (g->pos >= g->len) return;
  if (g->cap && c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
  if (g->cap && c != ' ') g->cap = false;
  g->out[g->pos++] = c;
}
static void word(gen *g, const char *w) {
  if (g->pos > 0 && g->out[g->pos - 1] != '\n' && g->out[g->pos - 1] != ' ') put(g, ' ');
  for (; *w; w++) put(g, *w);
}
#define PICK(g, table) ((table)[draw(g, (uint32_t)(sizeof(table) / sizeof((table)[0])))])

typedef struct { const char *one, *many; } noun_forms;
typedef struct { const char *base, *s, *past; } verb_forms;

static const noun_forms nouns[] = {
    {"cat", "cats"}, {"dog", "dogs"}, {"bird", "birds"}, {"horse", "horses"}, {"fox", "foxes"},
    {"child", "children"}, {"man", "men"}, {"woman", "women"}, {"girl", "girls"}, {"boy", "boys"},
    {"teacher", "teachers"}, {"farmer", "farmers"}, {"king", "kings"}, {"queen", "queens"},
    {"doctor", "doctors"}, {"sailor", "sailors"}, {"baker", "bakers"}, {"student", "students"},
    {"friend", "friends"}, {"neighbour", "neighbours"}, {"stranger", "strangers"},
    {"soldier", "soldiers"}, {"painter", "painters"}, {"singer", "singers"}, {"mouse", "mice"},
    {"wolf", "wolves"}, {"fish", "fish"}, {"sheep", "sheep"}, {"goose", "geese"}, {"owl", "owls"},
    {"house", "houses"}, {"garden", "gardens"}, {"river", "rivers"}, {"tree", "trees"},
    {"forest", "forests"}, {"road", "roads"}, {"bridge", "bridges"}, {"village", "villages"},
    {"city", "cities"}, {"mountain", "mountains"}, {"hill", "hills"}, {"field", "fields"},
    {"window", "windows"}, {"door", "doors"}, {"table", "tables"}, {"chair", "chairs"},
    {"book", "books"}, {"letter", "letters"}, {"box", "boxes"}, {"basket", "baskets"},
    {"apple", "apples"}, {"loaf", "loaves"}, {"cake", "cakes"}, {"cup", "cups"}, {"key", "keys"},
    {"lamp", "lamps"}, {"ship", "ships"}, {"boat", "boats"}, {"train", "trains"},
    {"wagon", "wagons"}, {"stone", "stones"}, {"flower", "flowers"}, {"leaf", "leaves"},
    {"song", "songs"}, {"story", "stories"}, {"picture", "pictures"}, {"coat", "coats"},
    {"hat", "hats"}, {"shoe", "shoes"}, {"ring", "rings"}, {"coin", "coins"}, {"map", "maps"},
    {"clock", "clocks"}, {"bell", "bells"}, {"candle", "candles"}, {"kitchen", "kitchens"},
    {"school", "schools"}, {"market", "markets"}, {"church", "churches"}, {"tower", "towers"},
    {"island", "islands"}, {"lake", "lakes"}, {"cloud", "clouds"}, {"star", "stars"},
    {"egg", "eggs"}, {"idea", "ideas"}, {"answer", "answers"}, {"question", "questions"},
    {"machine", "machines"}, {"engine", "engines"}};
static const char *const adjectives[] = {
    "old", "young", "small", "big", "little", "tall", "short", "quiet", "loud", "happy", "sad",
    "angry", "tired", "hungry", "brave", "clever", "foolish", "kind", "cruel", "gentle", "proud",
    "shy", "strange", "famous", "poor", "rich", "busy", "lazy", "red", "green", "blue", "yellow",
    "white", "black", "brown", "grey", "golden", "wooden", "broken", "empty", "heavy", "light",
    "dark", "bright", "warm", "cold", "wet", "dry", "clean", "dirty", "new", "ancient", "beautiful",
    "ugly", "careful", "curious", "silent", "wild", "sleepy", "lonely", "open", "hidden",
    "round", "narrow", "wide"};
static const verb_forms tverbs[] = {
    {"see", "sees", "saw"}, {"find", "finds", "found"}, {"carry", "carries", "carried"},
    {"follow", "follows", "followed"}, {"watch", "watches", "watched"}, {"chase", "chases", "chased"},
    {"help", "helps", "helped"}, {"love", "loves", "loved"}, {"like", "likes", "liked"},
    {"hate", "hates", "hated"}, {"know", "knows", "knew"}, {"take", "takes", "took"},
    {"give", "gives", "gave"}, {"bring", "brings", "brought"}, {"buy", "buys", "bought"},
    {"sell", "sells", "sold"}, {"make", "makes", "made"}, {"build", "builds", "built"},
    {"paint", "paints", "painted"}, {"draw", "draws", "drew"}, {"read", "reads", "read"},
    {"write", "writes", "wrote"}, {"open", "opens", "opened"}, {"close", "closes", "closed"},
    {"push", "pushes", "pushed"}, {"pull", "pulls", "pulled"}, {"hold", "holds", "held"},
    {"drop", "drops", "dropped"}, {"catch", "catches", "caught"}, {"throw", "throws", "threw"},
    {"keep", "keeps", "kept"}, {"lose", "loses", "lost"}, {"visit", "visits", "visited"},
    {"meet", "meets", "met"}, {"call", "calls", "called"}, {"answer", "answers", "answered"},
    {"teach", "teaches", "taught"}, {"feed", "feeds", "fed"}, {"wash", "washes", "washed"},
    {"cook", "cooks", "cooked"}, {"eat", "eats", "ate"}, {"hear", "hears", "heard"},
    {"remember", "remembers", "remembered"}, {"forget", "forgets", "forgot"},
    {"want", "wants", "wanted"}, {"need", "needs", "needed"}, {"hide", "hides", "hid"},
    {"leave", "leaves", "left"}, {"fix", "fixes", "fixed"}, {"guard", "guards", "guarded"}};
static const verb_forms iverbs[] = {
    {"sleep", "sleeps", "slept"}, {"run", "runs", "ran"}, {"walk", "walks", "walked"},
    {"sing", "sings", "sang"}, {"laugh", "laughs", "laughed"}, {"cry", "cries", "cried"},
    {"wait", "waits", "waited"}, {"sit", "sits", "sat"}, {"stand", "stands", "stood"},
    {"swim", "swims", "swam"}, {"fly", "flies", "flew"}, {"dance", "dances", "danced"},
    {"fall", "falls", "fell"}, {"smile", "smiles", "smiled"}, {"shout", "shouts", "shouted"},
    {"work", "works", "worked"}, {"play", "plays", "played"}, {"rest", "rests", "rested"},
    {"arrive", "arrives", "arrived"}, {"return", "returns", "returned"}, {"wander", "wanders", "wandered"},
    {"listen", "listens", "listened"}, {"whisper", "whispers", "whispered"}, {"live", "lives", "lived"},
    {"grow", "grows", "grew"}};
static const char *const adverbs[] = {
    "quickly", "slowly", "quietly", "loudly", "happily", "sadly", "carefully", "often", "never",
    "always", "sometimes", "again", "together", "alone", "gently", "suddenly", "badly", "well",
    "early", "late", "softly", "bravely", "eagerly", "calmly", "rarely", "twice", "today",
    "outside", "there", "here"};
static const char *const pre_adverbs[] = {"often", "never", "always", "sometimes", "rarely",
                                          "quickly", "slowly", "suddenly", "quietly", "carefully",
                                          "gladly", "soon"};
static const char *const preps[] = {"in", "on", "under", "near", "behind", "beside", "with",
                                    "over", "across", "through", "from", "into", "by", "around",
                                    "without", "after", "before"};
static const char *const names[] = {"Anna", "Tom", "Maria", "John", "Lucy", "Peter", "Emma",
                                    "Jack", "Sophie", "Paul", "Clara", "Ben", "Nora", "Oliver",
                                    "Rosa", "Sam", "Alice", "Leo", "Ivy", "Hugo"};
static const char *const openers[] = {"yesterday", "then", "later", "suddenly", "at last",
                                      "in the morning", "at night", "once", "after that",
                                      "every day", "one day", "meanwhile", "in the end", "today"};
static const char *const joins[] = {"and", "but", "so", "while"};
static const char *const det_one[] = {"the", "the", "the", "the", "a", "a", "a", "this", "that",
                                      "every", "my", "his", "her", "our", "their", "one", "each",
                                      "your", "no"};
static const char *const det_many[] = {"the", "the", "the", "the", "some", "some", "these",
                                       "those", "many", "few", "two", "three", "my", "our",
                                       "their", "all the", "no", "several", "your"};

static void vp(gen *g, bool plural, bool past, unsigned depth);

/* det adj* noun [PP] [that VP]; returns whether it is plural. */
static bool np(gen *g, bool past, unsigned depth) {
  if (chance(g, 10)) {
    word(g, PICK(g, names));
    return false;
  }
  const bool plural = chance(g, 35);
  const unsigned nadj = chance(g, 45) ? (chance(g, 27) ? 2 : 1) : 0;
  const char *adj[2] = {nadj > 0 ? PICK(g, adjectives) : NULL, nadj > 1 ? PICK(g, adjectives) : NULL};
  const noun_forms *nf = &PICK(g, nouns);
  const char *det = plural ? PICK(g, det_many) : PICK(g, det_one);
  const char *next = nadj ? adj[0] : nf->one;
  const bool vowel = next[0] == 'a' || next[0] == 'e' || next[0] == 'i' || next[0] == 'o' || next[0] == 'u';
  word(g, det[0] == 'a' && det[1] == 0 && vowel ? "an" : det);
  for (unsigned i = 0; i < nadj; i++) word(g, adj[i]);
  word(g, plural ? nf->many : nf->one);
  if (depth < 2 && chance(g, 15)) word(g, PICK(g, preps)), np(g, past, depth + 1);
  if (depth < 1 && chance(g, 12)) word(g, "that"), vp(g, plural, past, depth + 1);
  return plural;
}

static void vp(gen *g, bool plural, bool past, unsigned depth) {
  if (chance(g, 60)) {
    if (chance(g, 10)) word(g, PICK(g, pre_adverbs));
    const verb_forms *v = &PICK(g, tverbs);
    word(g, past ? v->past : plural ? v->base : v->s);
    np(g, past, depth + 1);
    if (depth < 2 && chance(g, 25)) word(g, PICK(g, preps)), np(g, past, depth + 1);
    if (chance(g, 15)) word(g, PICK(g, adverbs));
  } else {
    const verb_forms *v = &PICK(g, iverbs);
    word(g, past ? v->past : plural ? v->base : v->s);
    if (depth < 2 && chance(g, 40)) word(g, PICK(g, preps)), np(g, past, depth + 1);
    if (chance(g, 20)) word(g, PICK(g, adverbs));
  }
}

static void clause(gen *g, bool past) { vp(g, np(g, past, 0), past, 0); }

static void sentence(gen *g) {
  const bool past = chance(g, 45);
  const uint32_t form = draw(g, 100);
  g->cap = true;
  if (form < 45) {
    clause(g, past);
  } else if (form < 60) {
    word(g, PICK(g, openers)), put(g, ','), clause(g, past);
  } else if (form < 70) {
    word(g, "when"), clause(g, past), put(g, ','), clause(g, past);
  } else {
    clause(g, past), put(g, ','), word(g, PICK(g, joins)), clause(g, past);
  }
  put(g, '.');
}

ss_status ss_grammar_text(uint64_t seed, char *out, size_t len) {
  if (!out) return SS_ERR_NULL;
  if (len == 0 || len > SS_MAX_N) return SS_ERR_PARAM_RANGE;
  gen g = {.seed = seed, .out = out, .len = len};
  uint32_t left = 3 + draw(&g, 5); /* sentences left in the paragraph */
  while (g.pos < len) {
    sentence(&g);
    if (--left == 0) put(&g, '\n'), left = 3 + draw(&g, 5);
    else put(&g, ' ');
  }
  return SS_OK;
}
