-- sample_rows(NULL::t, k, seed): golden values of the independent reference
-- (tests/reference/seeded_tablesample.py sample_rows, written from docs/rows.md, "Seeded
-- sample_rows, byte for byte"): the rows a seed gives from a table state, and their order,
-- must not change between releases, nor between PostgreSQL 14 and 18. The cases cover a first
-- try that is enough, one that comes back short and is followed by another sample, one followed
-- by a read of the whole table, a first try that reads the whole table, k = 0 and k above the
-- table's rows.
--
-- The tables' layout is fixed so that the rows in each slot cannot vary without a bug: each is
-- a fresh table (nothing deleted or updated), with a fixed fillfactor and autovacuum off, its
-- rows of one fixed width (one integer) inserted by one statement, and nothing else writes it.
-- Row i is then at page (i - 1) / 22, line pointer (i - 1) % 22 + 1 in sr_golden (fillfactor
-- 10) and at page (i - 1) / 226, line pointer (i - 1) % 226 + 1 in sr_golden_big (fillfactor
-- 100); the first statement checks it, so that a change of PostgreSQL's would show there and
-- not as a change of the sample. The rows' keys are made of the name `regclass` prints under
-- sample_rows' own search_path: public.sr_golden, public.sr_golden_big.
\set seed 'decode(''000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f'', ''hex'')'
\set ff 'decode(repeat(''ff'', 32), ''hex'')'
\set fives 'decode(repeat(''55'', 32), ''hex'')'
CREATE TABLE sr_golden (id int NOT NULL) WITH (fillfactor = 10, autovacuum_enabled = false);
INSERT INTO sr_golden SELECT i FROM generate_series(1, 1000) i;
CREATE TABLE sr_golden_big (id int NOT NULL) WITH (fillfactor = 100, autovacuum_enabled = false);
INSERT INTO sr_golden_big SELECT i FROM generate_series(1, 100000) i;
SELECT 'sr_golden' AS relation, count(*) AS rows, pg_relation_size('sr_golden') / 8192 AS pages,
       bool_and(ctid = format('(%s,%s)', (id - 1) / 22, (id - 1) % 22 + 1)::tid) AS row_i_in_its_place
  FROM sr_golden
UNION ALL
SELECT 'sr_golden_big', count(*), pg_relation_size('sr_golden_big') / 8192,
       bool_and(ctid = format('(%s,%s)', (id - 1) / 226, (id - 1) % 226 + 1)::tid)
  FROM sr_golden_big;

-- Printed by (the second line of its output: each try's index, rate, rows brought and kind)
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 0 public sr_golden public.sr_golden 4 1000/22
--     (no try)
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 1 public sr_golden public.sr_golden 4 1000/22
--     0:0.0005115089514066496:0:sample 1:0.008184143222506393:1000:scan
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 3 public sr_golden public.sr_golden 4 1000/22
--     0:0.0008068287821941819:0:sample 1:0.01290926051510691:1000:scan
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 10 public sr_golden public.sr_golden 4 1000/22
--     0:0.001647447171384208:1000:scan
SELECT 0 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{}' AS matches_reference
  FROM sample_rows(NULL::sr_golden, 0, :seed);
SELECT 1 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{210}' AS matches_reference
  FROM sample_rows(NULL::sr_golden, 1, :seed);
SELECT 3 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{210,768,542}' AS matches_reference
  FROM sample_rows(NULL::sr_golden, 3, :seed);
SELECT 10 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{437,53,314,220,814,300,86,313,142,807}' AS matches_reference
  FROM sample_rows(NULL::sr_golden, 10, :seed);

-- Printed by (the second line of its output: each try's index, rate, rows brought and kind)
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 1 public sr_golden_big public.sr_golden_big 4 100000/226
--     0:5.3113796308591154e-05:4:sample
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 10 public sr_golden_big public.sr_golden_big 4 100000/226
--     0:0.00017106674917307803:16:sample
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 100 public sr_golden_big public.sr_golden_big 4 100000/226
--     0:0.0010888328243261187:100000:scan
SELECT 1 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{94478}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_big, 1, :seed);
SELECT 10 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{55078,19314,42953,15883,43269,44105,56913,45817,15387,54026}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_big, 10, :seed);
SELECT 100 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{53162,74022,468,70557,5625,36323,95921,26645,62440,44308,49424,48630,26263,93344,30045,24796,4184,14273,2908,13045,85173,1423,13559,68419,47046,95731,25181,27250,4623,15514,48210,17607,89693,34758,98331,93271,9093,248,53877,79899,27883,25746,51904,98621,46358,51697,41289,56606,15318,51573,12721,74497,82342,9958,95949,32342,34287,9824,60033,2928,48027,85374,46395,49393,3944,32637,70529,56006,85102,19059,49688,333,85821,77454,39700,56579,14226,89226,97594,41091,99725,53789,11772,51029,593,28514,42323,36258,22607,97266,15764,68111,40155,82623,53486,4562,71258,15535,38695,48701}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_big, 100, :seed);

-- Printed by (the second line of its output: each try's index, rate, rows brought and kind)
--   tests/reference/seeded_tablesample.py sample_rows ff...ff 10 public sr_golden_big public.sr_golden_big 4 100000/226
--     0:0.00017106674917307803:25:sample
SELECT 10 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{85931,71349,29324,97398,83455,55023,75426,44469,58786,38631}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_big, 10, :ff);

-- Printed by (the second line of its output: each try's index, rate, rows brought and kind)
--   tests/reference/seeded_tablesample.py sample_rows 5555...55 10 public sr_golden_big public.sr_golden_big 4 100000/226
--     0:0.00017106674917307803:7:sample 1:0.000472255551123617:48:sample
SELECT 10 AS k, count(*) AS rows, array_agg(id) AS ids, coalesce(array_agg(id), '{}') = '{82977,71092,84337,73693,75280,86336,40118,42839,27550,6272}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_big, 10, :fives);

-- k above the rows: every row, in the order of their keys under the first try's key, printed by
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 2000 public sr_golden public.sr_golden 4 1000/22
SELECT count(*) AS rows, (array_agg(id))[1:10] AS first_ten, array_agg(id) = '{437,53,314,220,814,300,86,313,142,807,612,850,840,381,798,476,125,374,953,164,18,650,424,359,116,658,529,861,351,256,113,102,316,716,454,734,982,585,889,860,489,465,766,264,689,242,139,630,946,745,912,289,386,141,594,412,417,147,739,981,199,272,449,35,823,146,428,229,822,184,297,683,937,30,784,834,680,697,171,532,136,995,821,488,575,234,892,511,236,797,155,742,306,405,28,391,942,432,634,227,161,104,39,925,749,38,642,250,727,777,930,647,408,876,4,513,555,335,661,934,619,208,521,635,738,752,204,54,785,614,303,148,490,214,14,726,195,283,972,534,433,809,12,200,21,527,628,641,122,46,804,382,481,903,151,817,62,530,568,733,646,827,213,175,345,221,191,771,193,611,160,218,40,870,524,929,291,318,190,252,315,525,966,80,574,418,988,725,341,687,237,732,705,776,403,7,702,133,729,626,235,916,2,761,660,482,805,778,638,265,608,212,667,885,920,330,794,941,343,322,398,372,587,287,444,137,967,895,835,486,591,760,907,717,138,267,15,999,639,498,964,467,196,679,747,545,756,893,94,332,496,991,293,390,984,282,691,799,304,32,917,281,693,985,451,549,143,998,255,31,631,301,219,429,63,773,582,588,447,75,262,731,921,515,621,595,163,461,576,740,95,684,311,339,864,397,536,887,186,886,239,671,757,310,919,970,475,793,91,522,443,954,248,168,326,913,557,601,73,245,209,883,106,844,902,789,977,843,720,307,176,455,846,410,131,352,519,868,599,422,404,923,319,507,344,863,690,93,637,539,584,832,19,517,367,275,76,759,561,463,308,826,782,501,59,274,542,788,994,538,334,666,121,978,425,74,589,676,922,750,735,957,331,569,355,512,377,347,460,99,552,505,730,387,803,33,112,127,257,548,901,90,944,379,376,779,118,233,845,423,968,88,700,873,466,664,618,820,627,459,891,157,721,158,336,368,706,383,600,1000,192,837,246,640,363,816,189,708,818,183,961,573,540,609,491,224,414,533,969,699,346,986,492,452,829,543,866,61,592,518,556,166,421,114,590,153,598,100,648,130,126,416,366,950,354,115,69,655,350,681,871,711,959,487,201,869,744,808,468,571,362,553,132,580,378,225,812,838,238,124,269,292,247,394,8,477,581,579,523,203,865,980,802,644,724,68,294,719,312,932,271,696,211,101,493,395,34,652,710,6,603,500,401,495,570,688,261,77,583,965,439,746,3,825,117,27,976,96,154,402,87,342,474,232,393,924,181,842,550,851,623,47,82,1,578,899,643,800,897,915,207,446,741,298,370,956,333,544,989,66,325,16,758,206,413,177,707,375,182,877,723,531,441,554,170,277,633,321,722,928,926,22,140,217,268,780,266,662,358,657,933,305,356,514,565,649,806,909,560,947,811,774,456,896,198,216,503,50,974,434,384,672,152,862,936,23,240,167,483,559,979,43,955,65,615,119,997,251,485,858,857,962,763,686,692,98,41,97,174,389,309,566,993,908,371,253,768,26,426,348,280,249,736,853,302,577,940,108,668,718,484,72,107,396,427,830,70,945,357,617,880,854,625,651,205,388,263,833,796,457,677,656,879,906,436,120,884,420,17,714,150,520,273,526,795,353,670,84,123,755,299,938,971,882,663,400,440,364,541,654,409,685,562,169,202,320,900,551,973,509,743,20,963,810,340,458,572,712,848,737,230,11,92,624,836,411,241,9,839,109,754,943,270,188,910,317,786,442,983,37,435,516,728,815,288,875,849,111,828,431,231,430,258,5,479,975,504,872,180,596,135,279,156,42,748,323,931,813,149,13,546,406,894,228,83,867,911,337,79,607,888,103,715,373,751,58,632,215,187,856,665,753,772,669,185,951,775,905,675,44,629,470,502,948,145,597,338,10,223,535,653,987,415,285,841,360,695,791,419,286,678,165,914,547,564,24,767,178,64,324,85,790,783,593,852,602,480,259,787,792,254,349,510,713,701,49,606,453,881,57,407,244,508,290,605,878,399,698,327,497,610,162,194,918,622,60,586,694,990,769,78,172,996,89,29,438,645,506,949,494,105,620,296,365,210,197,473,898,380,469,445,499,764,51,765,284,613,450,52,673,859,847,762,604,952,558,563,935,770,144,128,636,472,890,478,243,45,801,528,703,329,874,960,110,173,361,659,567,855,67,939,992,25,471,392,159,537,385,831,904,819,781,824,958,616,369,674,226,278,81,36,462,55,704,56,129,134,71,328,464,682,276,48,179,448,260,709,222,927,295}' AS matches_reference
  FROM sample_rows(NULL::sr_golden, 2000, :seed);

-- A partitioned table: its leaves' pages sized together, each leaf sampled under its own schema
-- and name, every row keyed by its leaf's name as regclass prints it (schema-qualified, quoted
-- where needed). Its partitions are laid out as sr_golden_big, row i of each at page
-- (i - 1) / 226 of it, numbered from the partition's first id.
CREATE SCHEMA sr_golden_schema;
CREATE TABLE sr_golden_parted (id int NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE sr_golden_q1 PARTITION OF sr_golden_parted FOR VALUES FROM (1) TO (20001)
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE TABLE sr_golden_schema.sr_golden_q2 PARTITION OF sr_golden_parted FOR VALUES FROM (20001) TO (50001)
  WITH (fillfactor = 100, autovacuum_enabled = false);
CREATE TABLE "sr_golden_Q3" PARTITION OF sr_golden_parted FOR VALUES FROM (50001) TO (60001)
  WITH (fillfactor = 100, autovacuum_enabled = false);
INSERT INTO sr_golden_parted SELECT i FROM generate_series(1, 60000) i;
SELECT tableoid::regclass AS partition, count(*) AS rows,
       pg_relation_size(tableoid::regclass) / 8192 AS pages,
       bool_and(ctid = format('(%s,%s)', (id - first) / 226, (id - first) % 226 + 1)::tid) AS row_i_in_its_place
  FROM (SELECT tableoid, ctid, id, CASE WHEN id <= 20000 THEN 1 WHEN id <= 50000 THEN 20001 ELSE 50001 END AS first
          FROM sr_golden_parted) p
 GROUP BY tableoid ORDER BY min(id);
-- Printed by (the leaves in the order of their bounds)
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 5 public sr_golden_q1 public.sr_golden_q1 4 20000/226 \
--     sr_golden_schema sr_golden_q2 sr_golden_schema.sr_golden_q2 30000/226@20001 public sr_golden_Q3 'public."sr_golden_Q3"' 10000/226@50001
--     0:0.00018318478306527986:12:sample
--   tests/reference/seeded_tablesample.py sample_rows 000102...1f 30 public sr_golden_q1 public.sr_golden_q1 4 20000/226 \
--     sr_golden_schema sr_golden_q2 sr_golden_schema.sr_golden_q2 30000/226@20001 public sr_golden_Q3 'public."sr_golden_Q3"' 10000/226@50001
--     0:0.0006455820099890332:45:sample
--   tests/reference/seeded_tablesample.py sample_rows ff...ff 10 public sr_golden_q1 public.sr_golden_q1 4 20000/226 \
--     sr_golden_schema sr_golden_q2 sr_golden_schema.sr_golden_q2 30000/226@20001 public sr_golden_Q3 'public."sr_golden_Q3"' 10000/226@50001
--     0:0.0002838298497515864:13:sample
SELECT 5 AS k, count(*) AS rows, array_agg(id) AS ids, array_agg(id) = '{55386,30451,49644,26738,55231}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_parted, 5, :seed);
SELECT 30 AS k, count(*) AS rows, array_agg(id) AS ids, array_agg(id) = '{24608,13183,32194,4836,51518,45198,22040,14013,17268,9463,10564,16513,37589,22970,21927,28424,30074,3909,49651,39471,42425,43899,5154,17375,19686,59685,2314,6991,25610,3321}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_parted, 30, :seed);
SELECT 10 AS k, count(*) AS rows, array_agg(id) AS ids, array_agg(id) = '{45647,30462,37179,1765,51979,6741,9850,8724,26980,47907}' AS matches_reference
  FROM sample_rows(NULL::sr_golden_parted, 10, :ff);

DROP TABLE sr_golden, sr_golden_big, sr_golden_parted;
DROP SCHEMA sr_golden_schema;
