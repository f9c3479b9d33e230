// Test aid: damages an HDF5 file the way a bad disk, a bad copy or another program version would,
// so that the tests can check that undertow refuses it with a clear message.
//
//   h5_edit FILE attribute NAME VALUE        set the root attribute NAME (a number) to VALUE
//   h5_edit FILE poke DATASET VALUE          overwrite the first value of DATASET, keeping its
//                                            checksum
//   h5_edit FILE list                        print every attribute and dataset, one per line:
//                                              attribute OBJECT NAME BYTES
//                                              dataset OBJECT BYTES
//   h5_edit FILE flip OBJECT NAME BYTE MASK  XOR the byte at offset BYTE of the raw value of the
//                                            attribute NAME of OBJECT (NAME "-": the dataset
//                                            OBJECT itself) with MASK (0-255)
//   h5_edit FILE delete OBJECT NAME          remove the attribute NAME of OBJECT
//
// Exit 0 on success, 1 if HDF5 refused, 2 for a bad command line.

#include <cstdio>
#include <cstdlib>
#include <hdf5.h>
#include <string>
#include <vector>

namespace {

int usage() {
  std::fprintf(stderr, "usage: h5_edit FILE attribute NAME VALUE | poke DATASET VALUE | list | "
                       "flip OBJECT NAME|- BYTE MASK | delete OBJECT NAME\n");
  return 2;
}

herr_t set_attribute(hid_t file, const char* name, double value) {
  if (H5Aexists(file, name) > 0)
    H5Adelete(file, name);
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(file, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
  const herr_t status = H5Awrite(attr, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(attr);
  H5Sclose(space);
  return status;
}

herr_t poke(hid_t file, const char* dataset, double value) {
  const hid_t set = H5Dopen2(file, dataset, H5P_DEFAULT);
  if (set < 0)
    return -1;
  const hid_t space = H5Dget_space(set);
  hsize_t start[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, one, nullptr);
  const hid_t memory = H5Screate_simple(H5Sget_simple_extent_ndims(space), one, nullptr);
  const herr_t status = H5Dwrite(set, H5T_NATIVE_DOUBLE, memory, space, H5P_DEFAULT, &value);
  H5Sclose(memory);
  H5Sclose(space);
  H5Dclose(set);
  return status;
}

/// Bytes of the raw value of an attribute or a dataset: element size times element count.
hsize_t raw_bytes(hid_t type, hid_t space) {
  const hssize_t points = H5Sget_simple_extent_npoints(space);
  return points < 0 ? 0 : H5Tget_size(type) * static_cast<hsize_t>(points);
}

herr_t list_attribute(hid_t object, const char* name, const H5A_info_t*, void* path) {
  const hid_t attr = H5Aopen(object, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
  std::printf("attribute %s %s %llu\n", static_cast<const char*>(path), name,
              static_cast<unsigned long long>(raw_bytes(type, space)));
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attr);
  return 0;
}

/// Prints the attributes of `object` (at `path`), then, if it is a group, its members in name
/// order, recursively. (Only calls whose signatures are the same in HDF5 1.10 and 1.12+.)
herr_t list_object(hid_t object, const std::string& path) {
  if (H5Iget_type(object) == H5I_DATASET) {
    const hid_t type = H5Dget_type(object), space = H5Dget_space(object);
    std::printf("dataset %s %llu\n", path.c_str(),
                static_cast<unsigned long long>(raw_bytes(type, space)));
    H5Sclose(space);
    H5Tclose(type);
  }
  hsize_t index = 0;
  herr_t status = H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, &index, list_attribute,
                              const_cast<char*>(path.c_str()));
  if (H5Iget_type(object) != H5I_GROUP && H5Iget_type(object) != H5I_FILE)
    return status;
  H5G_info_t info;
  if (H5Gget_info(object, &info) < 0)
    return -1;
  for (hsize_t i = 0; i < info.nlinks && status >= 0; ++i) {
    char name[1024] = {};
    if (H5Lget_name_by_idx(object, ".", H5_INDEX_NAME, H5_ITER_INC, i, name, sizeof name,
                           H5P_DEFAULT) < 0)
      return -1;
    const hid_t member = H5Oopen(object, name, H5P_DEFAULT);
    if (member < 0)
      return -1;
    status = list_object(member, (path == "/" ? "" : path) + "/" + name);
    H5Oclose(member);
  }
  return status;
}

/// XORs byte `byte` of the raw value of attribute `name` of `object` ("-": the dataset itself).
herr_t flip(hid_t file, const char* object, const char* name, hsize_t byte, unsigned mask) {
  const bool dataset = std::string(name) == "-";
  const hid_t o =
      dataset ? H5Dopen2(file, object, H5P_DEFAULT) : H5Oopen(file, object, H5P_DEFAULT);
  if (o < 0)
    return -1;
  const hid_t attr = dataset ? -1 : H5Aopen(o, name, H5P_DEFAULT);
  herr_t status = -1;
  if (dataset || attr >= 0) {
    const hid_t type = dataset ? H5Dget_type(o) : H5Aget_type(attr);
    const hid_t space = dataset ? H5Dget_space(o) : H5Aget_space(attr);
    std::vector<unsigned char> raw(raw_bytes(type, space));
    if (byte < raw.size() && H5Tis_variable_str(type) <= 0) {
      status = dataset ? H5Dread(o, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data())
                       : H5Aread(attr, type, raw.data());
      raw[byte] = static_cast<unsigned char>(raw[byte] ^ mask);
      if (status >= 0)
        status = dataset ? H5Dwrite(o, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw.data())
                         : H5Awrite(attr, type, raw.data());
    }
    H5Sclose(space);
    H5Tclose(type);
  }
  if (attr >= 0)
    H5Aclose(attr);
  dataset ? H5Dclose(o) : H5Oclose(o);
  return status;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3)
    return usage();
  const std::string what = argv[2];
  const bool list = what == "list";
  const hid_t file = H5Fopen(argv[1], list ? H5F_ACC_RDONLY : H5F_ACC_RDWR, H5P_DEFAULT);
  if (file < 0)
    return 1;
  herr_t status = -1;
  if (what == "attribute" && argc == 5)
    status = set_attribute(file, argv[3], std::atof(argv[4]));
  else if (what == "poke" && argc == 5)
    status = poke(file, argv[3], std::atof(argv[4]));
  else if (list && argc == 3)
    status = list_object(file, "/");
  else if (what == "flip" && argc == 7)
    status = flip(file, argv[3], argv[4], std::strtoull(argv[5], nullptr, 10),
                  static_cast<unsigned>(std::strtoul(argv[6], nullptr, 0)));
  else if (what == "delete" && argc == 5)
    status = H5Adelete_by_name(file, argv[3], argv[4], H5P_DEFAULT);
  else {
    H5Fclose(file);
    return usage();
  }
  H5Fclose(file);
  return status < 0 ? 1 : 0;
}
