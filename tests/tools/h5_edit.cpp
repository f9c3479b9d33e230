// Test aid: damages an HDF5 file the way a bad disk, a bad copy or another program version would,
// so that the tests can check that undertow refuses it with a clear message.
//
//   h5_edit FILE attribute NAME VALUE   set the root attribute NAME (a number) to VALUE
//   h5_edit FILE poke DATASET VALUE     overwrite the first value of DATASET, keeping its checksum

#include <cstdio>
#include <cstdlib>
#include <hdf5.h>
#include <string>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: h5_edit FILE attribute|poke NAME VALUE\n");
    return 2;
  }
  const std::string what = argv[2];
  const double value = std::atof(argv[4]);
  const hid_t file = H5Fopen(argv[1], H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0)
    return 1;
  herr_t status = -1;
  if (what == "attribute") {
    if (H5Aexists(file, argv[3]) > 0)
      H5Adelete(file, argv[3]);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attr =
        H5Acreate2(file, argv[3], H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
    status = H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
    H5Aclose(attr);
    H5Sclose(space);
  } else if (what == "poke") {
    const hid_t set = H5Dopen2(file, argv[3], H5P_DEFAULT);
    const hid_t space = H5Dget_space(set);
    hsize_t start[3] = {0, 0, 0}, one[3] = {1, 1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, one, nullptr);
    const hid_t memory = H5Screate_simple(H5Sget_simple_extent_ndims(space), one, nullptr);
    status = H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value);
    H5Sclose(memory);
    H5Sclose(space);
    H5Dclose(set);
  }
  H5Fclose(file);
  return status < 0 ? 1 : 0;
}
