package io.infera.sim.workload;

import java.util.HashMap;
import java.util.Map;

/**
 * The fixed vocabulary every synthetic workload is written in: 2,000 common English words, token id
 * = {@value #FIRST_ID} + word index (ids in [{@value #FIRST_ID}, {@value #END_ID})), text = the
 * words joined by single spaces. Tokens and text therefore describe the same content exactly.
 *
 * <p>The words are the 2,000 lowest-ranked lowercase dictionary words that the Qwen3, Llama-3 and
 * GPT-4o byte-level BPE vocabularies each encode as ONE token both with and without a leading
 * space, so a prompt of N words is also N tokens (± the first word) under those real tokenizers and
 * workload sizes stay meaningful when a real router tokenizes the text. The list is frozen:
 * changing it changes every seeded workload.
 */
public final class Vocabulary {

  /** Number of words. */
  public static final int SIZE = 2000;

  /** Token id of word 0. */
  public static final int FIRST_ID = 1000;

  /** One past the last word's token id. */
  public static final int END_ID = FIRST_ID + SIZE;

  private static final String[] WORDS =
      """
      the and for con this that with pro return you new from are int class not was public have get
      can self all cont will your out has but function void set var else more his they per data
      one dis name true end null their private who time man which any false value app about add
      string over type inter part work when use off other been sup had were file would our year
      some there said her comm ass like let also than static just result them into what list case
      first import act char only print its back need sub start user under then may how people ind
      should test bet make after right long min array she par read form trans want number require
      col key two size where while spec look could know hand most try now him break every point
      mod error text pol show find current used play log see help these pass down even item don
      did through last event again high line does before because state cons here final run very
      model way call cal well object years default ins sim view pres many being good using stud
      request child echo person style method expect found post such think much count med check
      open est next follow car game path each support own sex sign those err system best same
      create made mark group fin world process main color report take day top free action index
      real max build message input art between table head must order say product double place
      information week prop program response code without sol ref still assert cap rep field team
      second going range nil fact android home left direct allow beg page different around really
      image target both put level document local content quest float develop poss too extends fore
      great month super title context met life catch pay change position old book version three
      law base during console against power width label project element success date tot big map
      pop few ear match node another sit care effect fun leg service since non full turn body
      something stand available block keep throw things red control come custom source await mill
      ask output email disc business required might never hard intern called options height small
      access protected job address sum little port status update link given better feel already
      including always parent got less account lot valid bit following sure prom search invest
      temp rest interest perform die site values won video prof cell player cost hum total stat
      load clear row short override company done health obj children cur days initial online
      instance organ reason within design cent school consider include stop later client love able
      men give condition copy either important lead family option exist offer water step
      government display times four far present lib room once results continue talk grow mass mean
      until market area length kind light side example camp miss based plan away button experience
      render near country author specific along express begin software imp win thing why single
      anal rights ant women season possible sent command recent money auto working query window
      least column record making close percent past write move pat special city tell select font
      course late amount looking hold pot property low price today adv attack means story meet mom
      den sort thought task opt review switch above question word provide research publish cover
      whether having large created host role porn web deal problem press though points ever
      services actually million server files often info space password store format details face
      save items social mar major expected yet food members comb bar send inc connection diff
      makes global contact except character news device previous material below media fail black
      component added buy came delete card root handle getting claim air enter location night
      doing pick watch human dam tax girl box strong interface house track application pack
      section unsigned wait throws terms apply session others fund template subject history
      individual users future started mode games products bad needs known exec seen border live
      variable provided hope young website study network limit cut went fire community official
      visit received token months learn mind quick comment admin background description represent
      series hot original bill frame draw comes elect filter remove front dig gen selected
      according virtual anything hours war models early center language ago easy download students
      fig buffer due cannot white register period screen net neg common suggest accept random hit
      click implement players among deb answer walk age five distributed friend clean words header
      issue land stream quality works half simple empty cook everything relations nothing running
      someone share entry changes personal offset pie events whole needed likely fight writing
      rate correct fall vol development features minutes collection similar taken son moment bring
      trying member foot board push please types edit cult defined thread instead idea film phone
      active death article almost sell connect feature via environment install complete general
      reserved icon party vector normal database music speed doc taking viol forward failed sender
      term potential published probably returns weight conditions exception module constructor
      favor loss engine issues parse stay lower perfect exact former six margin heart rather
      building questions security however inside graph tag attempt round friends campaign alt
      energy profession raise wanted policy third bed training prior exit release shall outside
      ground unique pour tree byte dating matter shows ball fast memory fit industry extra
      reported resources wrong unit takes etc appear coming settings quite blog everyone pretty
      menu currently relationship parameters names actual fields fix cases performance higher
      respect progress mid resource dim direction additional numbers companies sound statement
      alert contract lines soon join subs fill choose office transform implements hash flag note
      specified upon groups risk woman gets included cause van focus multiple receive increase
      commit leave align reading notice lock standard padding states internal especially cross
      national script arch written images platform force prevent living pattern entity tool feed
      popular methods allowed impact elements train related technology scale score student average
      court container parts decision song channel changed finally kill drug convert ways mat plus
      profile ready sense latest region deep reach counter weeks damage lost dog paper staff
      driver category oil stock dead rules modify contains stack undefined playing bottom road
      held includes avoid tab insert machine operation production areas operator tor argument
      movie sec activity uses license ability parameter functions rot pen choice flex characters
      rev legal ten reference regular goal touch built worth natural associated storage bytes
      travel passed grid bus countries porno login ill levels looks necessary placeholder released
      properties respond financial rule starting logger returned seek username otherwise systems
      drop structure errors arguments ensure grad usually customer door plant distance protect
      route primary leaders gun comments updated inform led bank sample hands offers shape sleep
      sold safe shared remember shoot scene park equal serial allows middle escort cop actions
      proper inn objects matrix ones green paint layer views core expert directory beautiful
      secret chat origin effects management setting massage happy finish camera stuff sale mention
      town solution slow blue customers cast dark package nor club loop played existing complex
      analysis deliver computer pas mobile owner leading flow shift eyes nice floor redirect wish
      stage solid meeting worked editor medical hour controller books mount felt modern seconds
      cache roll setup growth mix turned letter attention collect knowledge drive blood photo shot
      mother trade parents piece professional practice selection cam sites reader messages heard
      gold fair sales measure contain manager pain plans loaded grand credit difference pub
      reports adult whose ideas pair split capital hear exists parser education library calls
      brand pet charge depend basic arm star carry saved constant positive conduct skin layout
      picture videos components pull pages gas edge bound creating learning patients kids comfort
      shown lat dispatch classes successful none hair laws wide jobs math scope keys vote mask
      theme props fine writer copyright destroy generate browser favorite career recommend liter
      named panel rock trust economic race physical removed rows define father nature nation
      discover wall exam cool handler sun predict sometimes drink tests attribute interesting
      population greater launch band figure rank projects poll plot equipment headers raw gratis
      partial aria remain anti batch zero paid queue maximum birth maybe limited movement fans
      foreign pan tour moving fully earn materials unless sexual coach supported photos dialog
      pressure teams definition thinking enable concept sets meaning daily multi strict vehicle
      pool organization summer rap surface variables workers master stories steps skills builder
      effective tools digital inline intent requests debug spent missing wife cart located cards
      records purpose sin pointer hop requires norm weak mil firm places alone export activities
      expression testing adjust agree pod describe operations director yield integer transport
      essential girls socket prices sat wood reset forms instruction internet devices guard delay
      purchase fish leader culture straight confirm advert audio spot behavior detail fresh
      payload symbol voice transaction links boost cells college sing jump smart assist bur nodes
      fetch rates fuck owners torch adding reject aware mock binary closed permission although
      failure dream generated income eye guess particularly domain reduce danger distribution
      colors depth posts rent album axis minimum basis science budget flags truth gone battle
      station finished shop eight mail overall construction duration seven calling brain insurance
      abstract volume cursor upload tit completed columns units payment factor strength boy
      balance sources hidden eat trigger claims gift produce attributes warm flash negative burn
      clients cat employees partner civil loading cookies strategy ship signal alpha replace refer
      ahead pun appropriate agent transfer invalid gay journal quarter frag cash commercial fixed
      applications perhaps reviews wild degree disabled notes logging fan trip soft upper chem
      highest connected forces thus posted stress starts runs guide marketing consult signed
      sequence requirements dress folder permissions topic partners opening scan continued waiting
      street male mist traditional central heat onto factory guest mouse challenge terror extract
      capacity fat psych relative schools serve processing remote reflect monitor patient gain
      append dynamic dos ton baby hospital female chain farm contents speech warn heavy church
      whatever meta resolve updates listen trail prim spread clock branch motor radio restrict
      extension essay hat peace minor opened ban mission football bag enabled managed pin haven
      glass plugin older timer critical execute resp lose dry scroll wire strings matches electric
      tasks rich widget agency trial placed weather destination provider seeing cancel visual
      corner transition candidate criminal investment enemy inner pictures labels angle aim stick
      styles born expand raised episode mas construct external prefix cold finding router crow
      sand rid exchange district department documents healthy temperature metal submit asset cars
      square thanks tick experiment justify presence employee selector teen beat minute span earth
      sea species compare visible mess cloud traffic slot initialize generation bits delta
      limitations ended chart tags hotel movies steel mixed puts deck appoint bin neighbor
      identity forced validate accounts pitch remaining pieces registered creation instant
      delivery schedule thank hook articles west cities mentioned completion stars covered secure
      stored annual crime tail unknown assign stone daughter south brief conference gender sports
      yes approx wear reply ice animal native interval bug faith god positions animals bright
      reverse prompt skill wind warning draft holding diet nut holds rise kernel listed mostly
      blocks changing tile prepared ignore canvas artist ring flat checked lab lots award manage
      optional blank python zone verify packet pars exercise asking orders chief tom coverage
      charges filled north discussion sweet segment lie prime phase hide rub installed dump
      keeping joint weapon examples tight zip seed odd kick procedure ends animation sounds kid
      vent refresh tips homes fuel usage texture conversation incident boot spring locations
      samples stats mine sector chair apps mental ideal adapt deploy validation cup pure stores
      identify prepare rob sport alternative welcome caught survey decor radius linked ran sorted
      priority entered navigation cluster snap forget doctor entries prefer skip competition bind
      seat rating restaurant league focused absolute possibly craft confirmed cycle plants mouth
      versions moves coffee schema modified bond identified coding sheet wed mes advanced pal
      truck combined joined broken smooth merge issued patch technical drag bot resolution lay
      magic binding flight east copies dictionary iron trim
      """
          .strip()
          .split("\\s+");

  private static final Map<String, Integer> IDS = new HashMap<>(4 * SIZE);

  static {
    if (WORDS.length != SIZE) {
      throw new AssertionError("vocabulary has " + WORDS.length + " words, expected " + SIZE);
    }
    for (int i = 0; i < SIZE; i++) {
      if (IDS.put(WORDS[i], FIRST_ID + i) != null) {
        throw new AssertionError("duplicate vocabulary word " + WORDS[i]);
      }
    }
  }

  private Vocabulary() {}

  /** Whether {@code tokenId} is one of this vocabulary's ids. */
  public static boolean contains(int tokenId) {
    return tokenId >= FIRST_ID && tokenId < END_ID;
  }

  /** The word of {@code tokenId}; throws IllegalArgumentException outside the vocabulary. */
  public static String word(int tokenId) {
    if (!contains(tokenId)) {
      throw new IllegalArgumentException(
          "token id " + tokenId + " outside the vocabulary [" + FIRST_ID + ", " + END_ID + ")");
    }
    return WORDS[tokenId - FIRST_ID];
  }

  /** The token id of {@code word}, or -1 when it is not in the vocabulary. */
  public static int tokenId(String word) {
    Integer id = IDS.get(word);
    return id == null ? -1 : id;
  }

  /** The text of {@code tokens}: their words joined by single spaces ("" for no tokens). */
  public static String text(int[] tokens) {
    StringBuilder sb = new StringBuilder(tokens.length * 7);
    for (int i = 0; i < tokens.length; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      sb.append(word(tokens[i]));
    }
    return sb.toString();
  }

  /**
   * The tokens of {@code text} (the inverse of {@link #text}); words may be separated by any
   * whitespace. Throws IllegalArgumentException naming the first word outside the vocabulary.
   */
  public static int[] tokens(String text) {
    String s = text.strip();
    if (s.isEmpty()) {
      return new int[0];
    }
    String[] words = s.split("\\s+");
    int[] out = new int[words.length];
    for (int i = 0; i < words.length; i++) {
      int id = tokenId(words[i]);
      if (id < 0) {
        throw new IllegalArgumentException(
            "word " + i + " '" + words[i] + "' is not in the vocabulary");
      }
      out[i] = id;
    }
    return out;
  }

  /** {@code n} uniformly random tokens. */
  static int[] random(Rng rng, int n) {
    int[] out = new int[n];
    for (int i = 0; i < n; i++) {
      out[i] = FIRST_ID + rng.nextInt(SIZE);
    }
    return out;
  }

  /**
   * {@code n} random tokens whose first two encode {@code index} (base {@value #SIZE}), so pieces
   * with different indexes below {@code SIZE²} never share a prefix longer than one token, and
   * those below {@code SIZE} share none — by construction, not by luck.
   */
  static int[] tagged(Rng rng, int n, long index) {
    int[] out = random(rng, n);
    if (n > 0) {
      out[0] = FIRST_ID + (int) Math.floorMod(index, (long) SIZE);
    }
    if (n > 1) {
      out[1] = FIRST_ID + (int) Math.floorMod(index / SIZE, (long) SIZE);
    }
    return out;
  }
}
