-- TABLESAMPLE sparse_bernoulli (p) REPEATABLE (value): golden values of the independent
-- reference (tests/reference/seeded_tablesample.py tablesample, written from docs/rows.md,
-- "TABLESAMPLE sparse_bernoulli, byte for byte"): which rows a seed takes must not change
-- between releases, nor between PostgreSQL 14 and 18.
--
-- The tables' layout is fixed so that the rows in each slot cannot vary without a bug: each is
-- a fresh table (nothing deleted or updated), with a fixed fillfactor and autovacuum off, its
-- rows of one fixed width (one integer) inserted by one statement, and nothing else writes it.
-- PostgreSQL then stores row i at page (i - 1) / 22, line pointer (i - 1) % 22 + 1 (22 rows of
-- 32 bytes and their line pointers fit a page filled to 10%); the first statements check that
-- layout, so that a change of PostgreSQL's would show there and not as a change of the sample.
\set SHOW_CONTEXT never
CREATE TABLE ts_golden (id int NOT NULL) WITH (fillfactor = 10, autovacuum_enabled = false);
INSERT INTO ts_golden SELECT i FROM generate_series(1, 1000) i;
CREATE SCHEMA ts_golden_schema;
CREATE TABLE ts_golden_schema.ts_golden (id int NOT NULL) WITH (fillfactor = 10, autovacuum_enabled = false);
INSERT INTO ts_golden_schema.ts_golden SELECT i FROM generate_series(1, 1000) i;
CREATE TABLE ts_golden_parted (id int NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE ts_golden_p1 PARTITION OF ts_golden_parted FOR VALUES FROM (1) TO (501)
  WITH (fillfactor = 10, autovacuum_enabled = false);
CREATE TABLE ts_golden_p2 PARTITION OF ts_golden_parted FOR VALUES FROM (501) TO (1001)
  WITH (fillfactor = 10, autovacuum_enabled = false);
INSERT INTO ts_golden_parted SELECT i FROM generate_series(1, 1000) i;
SELECT 'ts_golden' AS relation, count(*) AS rows, pg_relation_size('ts_golden') / 8192 AS pages,
       bool_and(ctid = format('(%s,%s)', (id - 1) / 22, (id - 1) % 22 + 1)::tid) AS row_i_in_its_place
  FROM ts_golden
UNION ALL
SELECT 'ts_golden_schema.ts_golden', count(*), pg_relation_size('ts_golden_schema.ts_golden') / 8192,
       bool_and(ctid = format('(%s,%s)', (id - 1) / 22, (id - 1) % 22 + 1)::tid)
  FROM ts_golden_schema.ts_golden
UNION ALL
SELECT 'ts_golden_p' || (id > 500)::int + 1, count(*),
       pg_relation_size(CASE WHEN id > 500 THEN 'ts_golden_p2' ELSE 'ts_golden_p1' END) / 8192,
       bool_and(ctid = format('(%s,%s)', ((id - 1) % 500) / 22, ((id - 1) % 500) % 22 + 1)::tid)
  FROM ts_golden_parted GROUP BY id > 500
ORDER BY 1;

-- The seed the method gets is not the REPEATABLE value: PostgreSQL coerces it to float8 and
-- hashes it to 32 bits with hashfloat8 (little-endian machines). Printed by
--   tests/reference/seeded_tablesample.py hashfloat8 0 -0 42 -1.5 4503599627370495 1e300 NaN -Infinity
SELECT array_agg(hashfloat8(v) ORDER BY n) AS seeds,
       array_agg(hashfloat8(v) ORDER BY n) = '{0,0,520736324,-5283968,-956550096,318710814,-1275764840,-1377680656}' AS matches_reference
  FROM unnest(ARRAY['0', '-0', '42', '-1.5', '4503599627370495', '1e300', 'NaN', '-Infinity']::float8[]) WITH ORDINALITY u(v, n);


-- Golden samples of ts_golden, printed by
--   tests/reference/seeded_tablesample.py tablesample PERCENT VALUE public ts_golden 1000/22
SELECT 5 AS percent, '42'::float8 AS value, count(*) AS rows, array_agg(id ORDER BY id) AS ids,
       coalesce(array_agg(id ORDER BY id), '{}') = '{4,6,11,39,44,65,72,85,117,143,144,150,206,239,251,258,264,267,274,315,317,350,359,391,401,411,502,521,552,575,588,603,609,640,649,667,676,681,703,715,744,745,750,753,779,782,787,796,799,803,856,881,903,907,912,930,968,988}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE (42);
SELECT 5 AS percent, '0'::float8 AS value, count(*) AS rows, array_agg(id ORDER BY id) AS ids,
       coalesce(array_agg(id ORDER BY id), '{}') = '{95,101,151,159,174,207,211,229,258,273,277,339,352,357,379,415,429,455,479,507,555,599,615,622,630,659,669,673,683,685,687,713,714,761,769,780,783,811,821,836,839,854,867,946,956,963,964,979,992,998}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE (0);
SELECT 5 AS percent, '-0'::float8 AS value, count(*) AS rows,
       coalesce(array_agg(id ORDER BY id), '{}') = '{95,101,151,159,174,207,211,229,258,273,277,339,352,357,379,415,429,455,479,507,555,599,615,622,630,659,669,673,683,685,687,713,714,761,769,780,783,811,821,836,839,854,867,946,956,963,964,979,992,998}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE ('-0'::float8);
SELECT 0.5 AS percent, '-1.5'::float8 AS value, count(*) AS rows, array_agg(id ORDER BY id) AS ids,
       coalesce(array_agg(id ORDER BY id), '{}') = '{144,356,388,531,558}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (0.5) REPEATABLE (-1.5);
SELECT 1 AS percent, '1e300'::float8 AS value, count(*) AS rows, array_agg(id ORDER BY id) AS ids,
       coalesce(array_agg(id ORDER BY id), '{}') = '{124,379,409,832,890,962}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (1) REPEATABLE (1e300);
SELECT 1 AS percent, 'NaN'::float8 AS value, count(*) AS rows, array_agg(id ORDER BY id) AS ids,
       coalesce(array_agg(id ORDER BY id), '{}') = '{15,112,331,378,411,491,660,718,799,922}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (1) REPEATABLE ('NaN'::float8);
SELECT 50 AS percent, '4503599627370495'::float8 AS value, count(*) AS rows,
       coalesce(array_agg(id ORDER BY id), '{}') = '{1,2,3,5,6,7,14,15,18,19,22,23,24,25,31,33,34,39,41,50,53,54,57,59,61,64,65,66,67,68,71,73,75,77,78,82,83,86,87,89,91,93,94,97,98,99,101,102,105,106,109,110,111,114,115,120,122,124,128,129,130,131,133,134,136,137,138,139,141,145,146,147,148,149,151,152,153,154,155,156,159,163,164,167,169,170,171,172,173,175,177,178,180,181,182,187,188,189,190,191,194,198,199,200,203,207,213,214,215,216,221,223,226,227,228,232,233,234,235,236,238,239,241,245,248,250,253,254,256,260,262,265,266,269,270,271,275,280,282,283,284,285,286,289,290,295,296,299,300,301,303,306,308,311,312,313,319,325,326,330,332,333,334,336,337,338,339,344,345,348,351,352,355,356,361,362,364,365,366,372,373,374,375,378,379,381,383,384,385,386,388,389,393,394,396,397,398,400,401,403,405,406,409,411,412,413,415,416,417,419,422,423,425,426,429,433,436,437,439,440,444,451,452,453,456,458,463,466,472,475,477,479,480,481,483,484,486,487,488,489,491,492,493,494,495,497,501,503,505,507,508,511,515,516,517,518,521,523,524,528,529,531,532,534,535,536,537,538,539,541,543,544,547,548,551,552,553,554,556,557,558,560,561,562,565,566,567,569,571,572,575,576,577,583,585,587,588,589,590,591,594,595,596,598,599,600,601,603,604,609,610,611,612,614,619,621,622,623,625,627,632,633,634,635,636,637,638,640,642,644,645,646,647,649,650,655,657,658,660,662,663,669,670,672,673,674,675,677,678,681,684,686,687,688,689,692,694,695,698,699,700,701,702,705,706,715,716,717,718,719,721,722,726,727,731,733,736,739,740,741,746,747,751,752,753,754,755,756,759,761,762,763,764,765,770,772,773,776,780,783,784,785,788,790,794,795,796,797,798,801,808,809,810,814,817,819,820,821,823,826,827,828,830,831,833,836,837,839,841,844,845,848,849,850,851,853,854,858,866,867,868,869,870,871,872,874,876,877,882,883,884,885,886,888,892,895,896,898,900,901,902,903,904,905,908,910,916,917,920,921,923,924,928,930,934,935,938,942,943,946,947,949,952,953,954,957,959,960,961,962,963,965,966,968,972,973,975,978,979,983,984,986,989,993,994,995,996,997,999,1000}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (50) REPEATABLE (4503599627370495);
SELECT 0 AS percent, '42'::float8 AS value, count(*) AS rows, array_agg(id ORDER BY id) AS ids,
       coalesce(array_agg(id ORDER BY id), '{}') = '{}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (0) REPEATABLE (42);
SELECT 100 AS percent, '7'::float8 AS value, count(*) AS rows,
       coalesce(array_agg(id ORDER BY id), '{}') = '{1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200,201,202,203,204,205,206,207,208,209,210,211,212,213,214,215,216,217,218,219,220,221,222,223,224,225,226,227,228,229,230,231,232,233,234,235,236,237,238,239,240,241,242,243,244,245,246,247,248,249,250,251,252,253,254,255,256,257,258,259,260,261,262,263,264,265,266,267,268,269,270,271,272,273,274,275,276,277,278,279,280,281,282,283,284,285,286,287,288,289,290,291,292,293,294,295,296,297,298,299,300,301,302,303,304,305,306,307,308,309,310,311,312,313,314,315,316,317,318,319,320,321,322,323,324,325,326,327,328,329,330,331,332,333,334,335,336,337,338,339,340,341,342,343,344,345,346,347,348,349,350,351,352,353,354,355,356,357,358,359,360,361,362,363,364,365,366,367,368,369,370,371,372,373,374,375,376,377,378,379,380,381,382,383,384,385,386,387,388,389,390,391,392,393,394,395,396,397,398,399,400,401,402,403,404,405,406,407,408,409,410,411,412,413,414,415,416,417,418,419,420,421,422,423,424,425,426,427,428,429,430,431,432,433,434,435,436,437,438,439,440,441,442,443,444,445,446,447,448,449,450,451,452,453,454,455,456,457,458,459,460,461,462,463,464,465,466,467,468,469,470,471,472,473,474,475,476,477,478,479,480,481,482,483,484,485,486,487,488,489,490,491,492,493,494,495,496,497,498,499,500,501,502,503,504,505,506,507,508,509,510,511,512,513,514,515,516,517,518,519,520,521,522,523,524,525,526,527,528,529,530,531,532,533,534,535,536,537,538,539,540,541,542,543,544,545,546,547,548,549,550,551,552,553,554,555,556,557,558,559,560,561,562,563,564,565,566,567,568,569,570,571,572,573,574,575,576,577,578,579,580,581,582,583,584,585,586,587,588,589,590,591,592,593,594,595,596,597,598,599,600,601,602,603,604,605,606,607,608,609,610,611,612,613,614,615,616,617,618,619,620,621,622,623,624,625,626,627,628,629,630,631,632,633,634,635,636,637,638,639,640,641,642,643,644,645,646,647,648,649,650,651,652,653,654,655,656,657,658,659,660,661,662,663,664,665,666,667,668,669,670,671,672,673,674,675,676,677,678,679,680,681,682,683,684,685,686,687,688,689,690,691,692,693,694,695,696,697,698,699,700,701,702,703,704,705,706,707,708,709,710,711,712,713,714,715,716,717,718,719,720,721,722,723,724,725,726,727,728,729,730,731,732,733,734,735,736,737,738,739,740,741,742,743,744,745,746,747,748,749,750,751,752,753,754,755,756,757,758,759,760,761,762,763,764,765,766,767,768,769,770,771,772,773,774,775,776,777,778,779,780,781,782,783,784,785,786,787,788,789,790,791,792,793,794,795,796,797,798,799,800,801,802,803,804,805,806,807,808,809,810,811,812,813,814,815,816,817,818,819,820,821,822,823,824,825,826,827,828,829,830,831,832,833,834,835,836,837,838,839,840,841,842,843,844,845,846,847,848,849,850,851,852,853,854,855,856,857,858,859,860,861,862,863,864,865,866,867,868,869,870,871,872,873,874,875,876,877,878,879,880,881,882,883,884,885,886,887,888,889,890,891,892,893,894,895,896,897,898,899,900,901,902,903,904,905,906,907,908,909,910,911,912,913,914,915,916,917,918,919,920,921,922,923,924,925,926,927,928,929,930,931,932,933,934,935,936,937,938,939,940,941,942,943,944,945,946,947,948,949,950,951,952,953,954,955,956,957,958,959,960,961,962,963,964,965,966,967,968,969,970,971,972,973,974,975,976,977,978,979,980,981,982,983,984,985,986,987,988,989,990,991,992,993,994,995,996,997,998,999,1000}' AS matches_reference
  FROM ts_golden TABLESAMPLE sparse_bernoulli (100) REPEATABLE (7);

-- The rows come in the order of their slots, page by page.
SELECT array_agg(id) = array_agg(id ORDER BY id) AS in_slot_order
  FROM ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE (42);
-- The same REPEATABLE value as a float8 of another spelling is the same seed.
SELECT (SELECT array_agg(id) FROM ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE (42))
     = (SELECT array_agg(id) FROM ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE (42.0::numeric)) AS same_seed;

-- The schema and the name are in the key: the same rows in another schema, printed by
--   tests/reference/seeded_tablesample.py tablesample 5 42 ts_golden_schema ts_golden 1000/22
SELECT array_agg(id ORDER BY id) AS ids, array_agg(id ORDER BY id) = '{6,38,76,77,81,127,139,150,154,157,163,173,211,216,219,224,248,262,274,313,339,343,382,408,429,430,431,445,461,505,522,526,549,563,575,624,683,696,697,738,752,767,798,824,837,850,887,906,907,920,928,938,974,983,998}' AS matches_reference
  FROM ts_golden_schema.ts_golden TABLESAMPLE sparse_bernoulli (5) REPEATABLE (42);
-- and each partition draws under its own name, printed by
--   tests/reference/seeded_tablesample.py tablesample 5 42 public ts_golden_p1 500/22
--   tests/reference/seeded_tablesample.py tablesample 5 42 public ts_golden_p2 500/22@501
SELECT array_agg(id ORDER BY id) AS ids, array_agg(id ORDER BY id) = '{6,29,42,43,73,89,101,116,141,142,161,180,191,208,226,264,278,307,368,390,429,440,466,529,535,570,596,604,617,670,697,723,736,744,748,772,813,869,886,937,949,968,994}' AS matches_reference
  FROM ts_golden_parted TABLESAMPLE sparse_bernoulli (5) REPEATABLE (42);

DROP TABLE ts_golden, ts_golden_parted, ts_golden_schema.ts_golden;
DROP SCHEMA ts_golden_schema;
