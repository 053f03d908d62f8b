-- shuffle_spread: the replayable order against the independent reference, what every order
-- keeps, how groups are compared, and every error.
\set SHOW_CONTEXT never
-- The seed of most replays: the bytes 0, 1, ..., 31.
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
\set ff 'decode(repeat(''ff'', 32), ''hex'')'
\set zero 'decode(repeat(''00'', 32), ''hex'')'
-- How many neighbours of an order share a group, the groups given in the same order.
CREATE FUNCTION same_group_neighbours(groups anyarray) RETURNS bigint LANGUAGE sql IMMUTABLE
  AS $$ SELECT count(*) FROM generate_series(1, cardinality(groups) - 1) i
         WHERE groups[i] IS NOT DISTINCT FROM groups[i + 1] $$;

-- Golden orders, printed by tests/reference/seeded_spread.py (an implementation of
-- docs/spread.md written apart from the extension):
--   seeded_spread.py spread 000102...1f 6 a1 a2 b1 a3 c1 b2 A A B A C B
SELECT shuffle_spread(ARRAY['a1', 'a2', 'b1', 'a3', 'c1', 'b2'], ARRAY['A', 'A', 'B', 'A', 'C', 'B'], :seed);
--   seeded_spread.py positions 000102...1f 1 1 1 1 1 1 2 2 2 2 3 3 3 4 4 5 5 6 7
SELECT shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 19) g),
                      ARRAY[1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 7], :seed);
-- One group holding more than half: the fewest neighbours possible is 2 * 5 - 7 - 1 = 2.
--   seeded_spread.py positions ff...ff A A A A A B C
SELECT shuffle_spread(ARRAY[1, 2, 3, 4, 5, 6, 7], '{A,A,A,A,A,B,C}'::text[], :ff) AS items,
       same_group_neighbours(shuffle_spread('{A,A,A,A,A,B,C}'::text[], '{A,A,A,A,A,B,C}'::text[], :ff));
-- Rows of a two-dimensional array move whole; the groups are one per row.
--   seeded_spread.py spread 000102...1f 4 '{1,2}' '{3,4}' '{5,6}' '{7,8}' x x y y
SELECT shuffle_spread(ARRAY[[1, 2], [3, 4], [5, 6], [7, 8]], ARRAY['x', 'x', 'y', 'y'], :seed);
-- A NULL group is a group of its own (an unknown artist is not every unknown artist); NULL
-- items move like any other.
--   seeded_spread.py spread 000102...1f 6 1 2 3 4 5 NULL Queen Queen Queen Abba Abba NULL
SELECT shuffle_spread(ARRAY[1, 2, 3, 4, 5, NULL], ARRAY['Queen', 'Queen', 'Queen', 'Abba', 'Abba', NULL], :seed);
SELECT shuffle_spread(ARRAY[1, 2, 3], ARRAY[NULL, NULL, NULL]::text[], :seed) IS NOT NULL AS all_null_groups;
--   seeded_spread.py spread 00...00 10 one two three four five six seven eight nine ten Abba Abba Abba Queen Queen Bowie Queen Abba Bowie Prince
SELECT shuffle_spread('{one,two,three,four,five,six,seven,eight,nine,ten}'::text[],
                      '{Abba,Abba,Abba,Queen,Queen,Bowie,Queen,Abba,Bowie,Prince}'::text[], :zero);
-- 200 items in 13 groups of different sizes, and 1000 items in 40 groups.
SELECT shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 200) g),
                      ARRAY(SELECT (g - 1) * (g - 1) % 13 FROM generate_series(1, 200) g), :seed)
       = '{51,35,134,26,164,109,131,149,147,119,153,146,177,162,30,185,47,104,161,170,178,154,10,143,99,42,63,22,148,25,21,195,1,6,50,2,129,49,60,11,83,157,191,145,3,59,76,58,36,168,184,7,199,152,14,38,117,176,57,82,120,9,106,174,112,97,130,4,23,81,118,111,78,17,101,12,32,98,56,182,16,136,62,46,53,141,93,140,64,19,72,115,80,198,96,165,151,196,160,132,116,87,187,137,186,144,179,91,113,133,173,73,70,155,84,41,128,86,171,27,172,123,192,190,43,122,15,100,94,8,89,127,52,68,105,74,167,33,200,77,169,110,121,66,54,189,107,166,175,95,163,197,194,114,45,40,37,65,125,103,31,71,108,158,34,55,18,126,150,69,183,135,28,90,48,138,102,142,88,67,188,180,79,85,156,5,29,139,24,159,75,20,39,92,61,193,44,181,13,124}'::int[] AS long_list_matches_reference,
       shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 1000) g),
                      ARRAY(SELECT (g - 1) % 40 FROM generate_series(1, 1000) g), :seed)
       = '{217,680,752,229,168,878,62,498,409,11,110,159,873,403,467,991,121,376,693,795,948,324,695,805,837,172,167,556,354,940,650,206,802,581,814,705,784,819,863,146,448,487,715,669,630,508,895,603,340,131,634,414,953,559,24,636,890,137,227,400,871,605,366,812,638,418,552,182,484,533,281,96,63,505,477,722,786,421,859,889,40,491,132,912,75,149,267,98,14,699,870,696,994,773,142,319,726,76,89,47,861,546,263,457,815,751,521,163,300,490,717,558,353,568,388,4,545,162,925,104,989,251,350,447,275,945,280,911,935,679,968,416,924,818,803,252,820,833,148,262,423,170,192,907,958,374,621,242,809,99,85,754,264,516,13,526,117,537,106,321,892,727,203,640,111,910,135,531,748,298,838,289,254,877,328,836,933,549,822,519,161,834,842,659,577,432,113,506,380,44,930,936,195,745,846,707,165,464,901,503,869,288,200,580,398,395,731,964,230,832,782,327,534,507,673,434,95,92,351,299,613,778,123,209,826,301,228,645,599,56,566,197,570,697,801,676,704,943,825,962,702,799,451,755,412,654,860,797,243,709,391,615,430,736,46,379,347,844,247,312,718,453,320,543,378,908,473,381,445,584,8,50,961,794,385,729,156,986,57,602,571,212,589,959,555,450,655,392,83,914,420,622,118,783,551,88,425,287,536,129,338,641,590,73,880,517,42,587,524,454,257,428,646,525,386,739,941,293,116,544,52,318,660,662,70,927,39,733,765,154,488,920,145,291,535,789,459,221,147,694,151,656,204,3,196,530,675,472,466,868,738,41,357,713,824,369,337,886,23,2,971,749,975,972,7,475,250,360,43,499,582,18,900,107,134,981,518,711,1,916,746,670,608,952,513,853,126,394,442,839,628,724,136,303,405,65,864,617,529,157,967,862,690,115,856,214,701,598,578,554,648,561,97,931,269,929,246,855,152,988,292,633,144,460,604,440,790,987,883,45,639,482,139,253,637,831,225,706,716,343,91,840,248,550,742,509,367,60,78,684,493,370,58,255,316,852,79,231,232,234,387,557,365,393,497,922,683,854,585,515,976,383,664,61,769,588,66,339,326,81,858,875,772,422,30,770,980,427,564,849,407,735,763,743,756,199,238,240,69,691,737,272,591,441,757,368,176,665,413,94,714,193,899,468,166,541,245,426,744,82,411,222,632,130,567,692,955,335,700,323,514,261,305,479,59,198,896,947,760,934,169,671,553,150,721,828,389,996,728,766,178,946,703,184,882,644,997,813,685,977,469,492,643,970,397,265,998,138,575,160,510,500,87,888,792,841,569,611,266,433,595,364,74,894,271,942,823,119,141,419,973,708,496,796,965,667,504,486,857,762,629,38,207,256,175,978,330,435,893,489,982,781,25,759,791,86,950,294,219,371,923,237,120,408,956,372,463,547,712,124,594,904,620,125,586,681,108,233,897,522,732,995,215,807,478,302,211,874,951,990,753,476,829,999,183,180,213,461,614,1000,682,329,296,210,444,483,565,898,872,528,865,64,761,657,917,979,28,186,787,446,109,12,239,915,740,688,19,236,881,651,938,686,455,54,53,963,342,9,127,918,480,177,72,677,194,750,624,471,90,884,785,188,903,627,16,793,725,906,21,562,258,949,390,158,55,404,10,932,140,80,774,891,663,806,439,68,363,993,431,576,592,817,179,49,77,808,185,687,954,542,341,187,424,635,26,201,133,396,5,362,572,278,560,29,295,719,780,470,810,153,658,623,465,17,511,647,331,286,788,512,307,449,355,128,436,462,764,563,334,779,674,601,93,666,944,816,37,485,101,642,51,349,20,452,919,35,373,84,410,618,274,616,313,48,285,579,734,678,960,983,306,382,985,847,415,921,777,843,352,191,966,668,190,317,27,384,181,689,276,282,800,928,102,850,798,710,260,747,399,437,548,885,155,241,607,356,314,821,619,332,216,574,771,909,523,969,32,273,31,15,345,346,344,333,804,218,606,417,583,202,811,532,720,538,438,311,905,270,502,768,653,429,284,205,283,375,308,401,992,67,34,939,100,974,501,835,456,226,887,406,610,279,277,596,937,593,103,649,122,984,767,310,290,208,631,600,851,358,220,189,902,539,609,143,235,652,495,105,876,443,173,297,672,827,494,361,359,926,913,474,661,698,244,957,336,348,304,866,325,322,309,22,540,775,730,171,174,776,249,164,259,612,848,520,268,758,573,6,879,315,741,377,112,458,36,625,830,527,33,597,723,71,845,867,114,481,626,223,224,402}'::int[] AS forty_groups_match_reference;

-- Two levels: artists, then albums within each artist (each artist's albums alternate).
--   seeded_spread.py nested 000102...1f Queen/Opera Queen/Opera Queen/Jazz Queen/Jazz Queen/Jazz
--       Abba/Arrival Abba/Arrival Bowie/Low Bowie/Heroes Prince/NULL
SELECT shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 10) g),
                      '{Queen,Queen,Queen,Queen,Queen,Abba,Abba,Bowie,Bowie,Prince}'::text[],
                      '{Opera,Opera,Jazz,Jazz,Jazz,Arrival,Arrival,Low,Heroes,NULL}'::text[], :seed);
--   seeded_spread.py nested 000102...1f A/NULL A/NULL A/NULL A/x B/y
SELECT shuffle_spread(ARRAY[1, 2, 3, 4, 5], '{A,A,A,A,B}'::text[], '{NULL,NULL,NULL,x,y}'::text[], :seed);
--   seeded_spread.py nested ff...ff 0/0 1/1 2/2 3/0 4/1 0/2 ... (item i: artist i % 5, album 7i % 3)
SELECT shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 60) g),
                      ARRAY(SELECT (g - 1) % 5 FROM generate_series(1, 60) g),
                      ARRAY(SELECT (g - 1) * 7 % 3 FROM generate_series(1, 60) g), :ff)
       = '{44,5,51,8,17,26,55,58,37,54,1,42,48,30,49,43,21,22,24,35,31,33,19,15,47,11,40,29,38,27,13,46,20,52,9,41,53,12,34,25,3,6,45,14,32,28,50,39,16,7,18,2,36,4,10,56,60,57,23,59}'::int[]
       AS two_levels_match_reference;
-- Live, on two levels: never an artist twice in a row, and each artist's albums alternate.
SELECT bool_and(same_group_neighbours(ARRAY(SELECT split_part(x, '/', 1) FROM unnest(s) x)) = 0
                AND same_group_neighbours(ARRAY(SELECT x FROM unnest(s) x WHERE x LIKE 'A/%')) = 0)
       AS apart_on_both_levels
  FROM (SELECT shuffle_spread('{A/x,A/x,A/y,A/y,B/z,B/z,C/w}'::text[], '{A,A,A,A,B,B,C}'::text[],
                              '{x,x,y,y,z,z,w}'::text[]) s
          FROM generate_series(1, 200)) t;

-- Groups are compared by their stored value: a text stored in a table (short header) and the
-- same text computed (long header) are one group, so an array read from a table spreads as
-- its literal does.
CREATE TABLE playlist_tracks (position int, track text, artist text);
INSERT INTO playlist_tracks
  SELECT g, 'track ' || g, (ARRAY['Abba', 'Queen', 'Bowie'])[1 + g % 3] FROM generate_series(1, 12) g;
SELECT shuffle_spread(ARRAY(SELECT track FROM playlist_tracks ORDER BY position),
                      ARRAY(SELECT artist FROM playlist_tracks ORDER BY position), :seed)
       = shuffle_spread(ARRAY(SELECT 'track ' || g FROM generate_series(1, 12) g),
                        ARRAY(SELECT (ARRAY['Abba', 'Queen', 'Bowie'])[1 + g % 3] FROM generate_series(1, 12) g), :seed)
       AS stored_equals_computed;
-- Different values of one type are different groups, even when they compare equal: numeric
-- 1.0 and 1.00 are two groups (cast the groups to pick another equality).
--   seeded_spread.py spread 000102...1f 4 1.0 1.0 1.00 1.00 1.0 1.0 1.00 1.00
SELECT shuffle_spread(ARRAY['1.0', '1.0', '1.00', '1.00'], ARRAY[1.0, 1.0, 1.00, 1.00], :seed)
       AS two_numeric_groups;

-- Live orders: the same items, the fewest neighbours possible, the bounds of the input.
SELECT bool_and(same_group_neighbours(s) = 0) AS never_a_neighbour,
       bool_and((SELECT array_agg(x ORDER BY x) FROM unnest(s) x) = '{A,A,A,B,B,C}') AS same_items
  FROM (SELECT shuffle_spread('{A,A,A,B,B,C}'::text[], '{A,A,A,B,B,C}'::text[]) s
          FROM generate_series(1, 200)) t;
SELECT count(DISTINCT shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 20) g),
                                     ARRAY(SELECT g % 4 FROM generate_series(1, 20) g))) > 90 AS differ
  FROM generate_series(1, 100);
SELECT array_dims(shuffle_spread('[0:3]={a,b,c,d}'::text[], ARRAY[1, 1, 2, 2])) AS bounds_kept,
       shuffle_spread('{}'::int[], '{}'::text[]) AS empty,
       shuffle_spread(ARRAY['only'], ARRAY[7]) AS one,
       shuffle_spread(ARRAY['only'], ARRAY[7], :seed) AS one_seeded;
-- STRICT: a NULL argument gives NULL.
SELECT shuffle_spread(NULL::int[], ARRAY[1]) IS NULL AS null_items,
       shuffle_spread(ARRAY[1], NULL::int[]) IS NULL AS null_groups,
       shuffle_spread(ARRAY[1], ARRAY[1], NULL) IS NULL AS null_seed;
-- Volatility and parallel safety as declared.
SELECT pg_get_function_identity_arguments(p.oid) AS arguments, provolatile, proparallel, proisstrict
  FROM pg_proc p WHERE proname = 'shuffle_spread' ORDER BY 1;

-- Errors.
SELECT shuffle_spread(ARRAY[1, 2], ARRAY['a', 'b'], ARRAY['x']);
SELECT shuffle_spread(ARRAY[1, 2], ARRAY['a', 'b'], ARRAY[['x', 'y']], :seed);
-- groups and subgroups need a common type (cast both to text):
SELECT shuffle_spread(ARRAY[1, 2], ARRAY['a', 'b'], ARRAY[1, 2]);
SELECT shuffle_spread(ARRAY[1, 2, 3], ARRAY['a', 'b']);
SELECT shuffle_spread(ARRAY[1, 2], ARRAY['a', 'b', 'c'], :seed);
SELECT shuffle_spread(ARRAY[1, 2], ARRAY[['a', 'b']]);
SELECT shuffle_spread(ARRAY[1, 2], ARRAY['a', 'b'], '\x00'::bytea);
SELECT shuffle_spread(ARRAY[1, 2], 'a');
-- About 40 bytes an item of working memory: 100000 items do not fit in 1 MB.
SET dealcards.max_working_memory = '1MB';
SELECT cardinality(shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 100000) g),
                                  ARRAY(SELECT g % 10 FROM generate_series(1, 100000) g)));
SELECT cardinality(shuffle_spread(ARRAY(SELECT g FROM generate_series(1, 10000) g),
                                  ARRAY(SELECT g % 10 FROM generate_series(1, 10000) g))) AS fits;
RESET dealcards.max_working_memory;
